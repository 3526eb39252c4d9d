import { readFileSync } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import { CliError } from '../errors.js';
import type { Storage } from '../storage/storage.js';
import { createWebhookDispatcher, type WebhookAttemptOutcomeLabel } from './webhook-dispatcher.js';
import { createWebhookSender } from './webhook-sender.js';

/** `serve --webhook-allow-private` and `--webhook-ca FILE` (docs/operations.md#long-polls-and-webhooks). */
export interface WebhookSettings {
  /** Calls may go to loopback, private and other special addresses (tests, a single host). */
  readonly allowPrivate: boolean;
  /** A CA certificate (PEM) trusted beside the system's for the receivers' certificates. */
  readonly caFile: string | undefined;
}

/** What /metrics counts of webhooks (metrics/service-metrics.ts). */
export interface WebhookMetrics {
  attempt(outcome: WebhookAttemptOutcomeLabel): void;
  /** Read at each scrape: the pending events and the oldest one's age. */
  backlog(read: () => Promise<{ readonly pending: number; readonly oldestCreatedAt: number | undefined }>): void;
}

export interface RunningWebhooks {
  /** Claims nothing more; resolves once the calls under way are sent and recorded. */
  stop(): Promise<void>;
}

/**
 * The webhook sender of this process: started by the process that maintains the store (the
 * single `serve` process, or the primary of `serve --workers`), one per instance. On SQLite
 * that is the one sender of the host; on PostgreSQL every instance runs one and the store's
 * leases make exactly one of them send each attempt.
 */
export function startWebhooks(
  storage: Storage,
  settings: WebhookSettings,
  options: { readonly log: FastifyBaseLogger; readonly version: string; readonly metrics?: WebhookMetrics | undefined },
): RunningWebhooks {
  let ca: Buffer | undefined;
  if (settings.caFile !== undefined) {
    try {
      ca = readFileSync(settings.caFile);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new CliError(`--webhook-ca: cannot read ${settings.caFile}: ${reason}`);
    }
  }
  const sender = createWebhookSender({
    allowPrivate: settings.allowPrivate,
    ca,
    userAgent: `meal-export-webhooks/${options.version}`,
  });
  const { metrics } = options;
  metrics?.backlog(() => storage.webhooks.webhookBacklog());
  const dispatcher = createWebhookDispatcher({
    webhooks: storage.webhooks,
    signals: storage.signals,
    send: (call) => sender.send(call),
    log: options.log,
    ...(metrics === undefined ? {} : { onAttempt: (outcome) => metrics.attempt(outcome) }),
  });
  if (settings.allowPrivate)
    options.log.warn('webhook calls may go to private and loopback addresses (--webhook-allow-private)');
  return {
    async stop() {
      await dispatcher.stop();
      sender.close();
    },
  };
}
