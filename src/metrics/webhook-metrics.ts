import { Counter, Gauge, type Registry } from 'prom-client';
import type { WebhookMetrics } from '../webhooks/webhook-service.js';

/**
 * What /metrics counts of webhooks (docs/operations.md#long-polls-and-webhooks): attempts by
 * outcome, events pending, and the age of the oldest pending one (read from the store at each
 * scrape). In the registry of the process that sends: the single `serve` process, or the primary of
 * `--workers`.
 */
export function createWebhookMetrics(registry: Registry): WebhookMetrics {
  const registers = [registry];
  const attempts = new Counter({
    name: 'meal_export_webhook_attempts_total',
    help: 'Webhook calls made, by outcome: delivered, failed (to be retried) or disabled (the endpoint was disabled).',
    labelNames: ['outcome'] as const,
    registers,
  });
  let read: Parameters<WebhookMetrics['backlog']>[0] = async () => ({ pending: 0, oldestCreatedAt: undefined });
  // One read of the store per scrape, shared by the two gauges below.
  let reading: ReturnType<typeof read> | undefined;
  const backlog = () => {
    reading ??= read().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  new Gauge({
    name: 'meal_export_webhook_events_pending',
    help: 'Webhook events not yet delivered (disabled endpoints included).',
    registers,
    async collect() {
      this.set((await backlog()).pending);
    },
  });
  new Gauge({
    name: 'meal_export_webhook_oldest_pending_seconds',
    help: 'Age of the oldest webhook event not yet delivered; 0 when none is pending.',
    registers,
    async collect() {
      const { oldestCreatedAt } = await backlog();
      this.set(oldestCreatedAt === undefined ? 0 : Math.max(0, (Date.now() - oldestCreatedAt) / 1000));
    },
  });
  return {
    attempt: (outcome) => attempts.inc({ outcome }),
    backlog(reader) {
      read = reader;
    },
  };
}
