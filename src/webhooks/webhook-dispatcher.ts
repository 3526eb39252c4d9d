import type { FastifyBaseLogger } from 'fastify';
import { erasedEndpointFate, webhookAttemptFate } from '../domain/webhook-retry.js';
import { EVERY_USER, type FeedWatch } from '../storage/change-signals.js';
import type { ChangeSignals } from '../storage/change-signals.js';
import type { WebhookStore } from '../storage/webhook-store.js';
import { createOutageLog } from '../storage/outage-log.js';
import { isMomentarilyBusy } from '../storage/unavailable.js';
import type { ClaimedWebhookEvent, WebhookAttemptFate } from '../domain/webhook-records.js';
import { renderWebhookBody } from './webhook-body.js';
import type { WebhookAttemptOutcome, WebhookCall } from './webhook-sender.js';

/** What /metrics hears of each attempt: `delivered`, `failed` (to be retried) or `disabled`. */
export type WebhookAttemptOutcomeLabel = 'delivered' | 'failed' | 'disabled';

export interface WebhookDispatcherOptions {
  readonly webhooks: Pick<WebhookStore, 'claimDueWebhookEvents' | 'nextWebhookDueAt' | 'recordWebhookAttempt'>;
  readonly signals: ChangeSignals;
  readonly send: (call: WebhookCall) => Promise<WebhookAttemptOutcome>;
  readonly log: FastifyBaseLogger;
  readonly onAttempt?: (outcome: WebhookAttemptOutcomeLabel) => void;
  /** The clock of claims and the retry schedule (tests inject one); Date.now by default. */
  readonly now?: () => number;
  readonly random?: () => number;
  /** How long a claimed event is this sender's: a sender that dies leaves it to others after this. */
  readonly leaseMs?: number;
  /** Calls under way at most (to different endpoints: one event per endpoint is in flight). */
  readonly maxInFlight?: number;
}

export interface WebhookDispatcher {
  /** Looks for due events now (the change signals and the next due time call it too). */
  wake(): void;
  /** Claims nothing more, and resolves once the calls under way are recorded. */
  stop(): Promise<void>;
}

// A call takes 10 s at most (webhook-sender.ts); the lease leaves room to record it.
const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_MAX_IN_FLIGHT = 16;
/** Between two looks at the outbox at least this long: a burst of commits is one look. */
const MIN_LOOK_GAP_MS = 50;
/** Without any signal, the outbox is looked at after this long at most (a lost signal, a clock skew). */
const MAX_SLEEP_MS = 60_000;
/** After the store failed, the next look. */
const STORE_RETRY_MS = 5_000;
/**
 * After the store was busy (another process's write lock, which a serving process's background
 * call does not wait for), the next look: the lock is usually a commit's moment, and nothing
 * may signal its end (a transaction that wrote nothing moves no data_version).
 */
const BUSY_RETRY_MS = 200;
/**
 * How long an endpoint whose address this process's flags refuse is left to other processes
 * before this one tries it again (a name may resolve elsewhere by then).
 */
const REFUSED_HERE_MS = 5 * 60_000;

/**
 * The one sender of this process (docs/operations.md#long-polls-and-webhooks): woken by the change
 * signals (any user's), by the next due time of the outbox, and when a call ends; never a busy
 * poll. It claims due events (a lease: on PostgreSQL many instances' dispatchers never take the
 * same event, and one that dies leaves its events to the others once the lease ends), calls each
 * endpoint, and records the attempt with its fate: delivered, retried on the contract's schedule
 * (domain/webhook-retry.ts), or the endpoint disabled.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { webhooks, signals, log } = options;
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const inFlight = new Set<Promise<void>>();
  let looking = false;
  let lookAgain = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let lastLookAt = -Infinity;
  const outage = createOutageLog(log, 'webhooks: the outbox');
  // Endpoints this process may not call, until when (performance.now()): their events are left to others.
  const refusedHere = new Map<string, number>();
  function leftToOthers(): string[] {
    const at = performance.now();
    for (const [endpointId, until] of refusedHere) if (until <= at) refusedHere.delete(endpointId);
    return [...refusedHere.keys()];
  }

  function sleepUntil(delayMs: number): void {
    clearTimeout(timer);
    timer = setTimeout(wake, Math.max(0, Math.min(delayMs, MAX_SLEEP_MS)));
    timer.unref();
  }

  function wake(): void {
    if (stopped) return;
    if (looking) {
      lookAgain = true;
      return;
    }
    const gap = lastLookAt + MIN_LOOK_GAP_MS - performance.now();
    if (gap > 0) {
      sleepUntil(gap);
      return;
    }
    looking = true;
    void look().finally(() => {
      looking = false;
      if (lookAgain) wake();
    });
  }

  async function look(): Promise<void> {
    lastLookAt = performance.now();
    lookAgain = false;
    try {
      const room = maxInFlight - inFlight.size;
      if (room > 0) {
        const claimed = await webhooks.claimDueWebhookEvents(now(), leaseMs, room, leftToOthers());
        for (const event of claimed) track(attempt(event));
        // As many as there was room for: more may be due.
        if (claimed.length === room) lookAgain = true;
      }
      if (!lookAgain && !stopped) {
        const due = await webhooks.nextWebhookDueAt(leftToOthers());
        sleepUntil(due === undefined ? MAX_SLEEP_MS : due - now());
      }
      outage.succeeded();
    } catch (err) {
      // A busy store (another process's write lock) is a normal moment: quiet until it lasts.
      const retryMs = isMomentarilyBusy(err) ? BUSY_RETRY_MS : STORE_RETRY_MS;
      outage.failed(err, retryMs);
      sleepUntil(retryMs);
    }
  }

  function track(call: Promise<void>): void {
    inFlight.add(call);
    void call.finally(() => {
      inFlight.delete(call);
      // The endpoint's next event, if any, may be due now; and there is room again.
      wake();
    });
  }

  async function attempt(event: ClaimedWebhookEvent): Promise<void> {
    const at = now();
    const outcome = await options.send({
      url: event.url,
      webhookId: event.eventId,
      timestampS: Math.floor(at / 1000),
      body: renderWebhookBody(event),
      secrets: event.secrets,
    });
    // Cut short by this process's shutdown: not the receiver's fault, so no attempt is recorded;
    // the lease runs out and the event is sent again, with the same webhook-id.
    if (outcome.error === 'aborted') return;
    // A 2xx whose body could not be read within the 10 s is no delivery; a 410 disables whatever came after it.
    const status = outcome.error === null || outcome.status === 410 ? outcome.status : null;
    // An address this process's flags refuse is no fault of the receiver's: another process
    // (another instance, or `serve --webhook-allow-private` beside this one) may call it, so the
    // event is left to it, due, with its schedule unspent (docs/webhooks.md#where-calls-may-go).
    const refused = outcome.error === 'refused_address';
    if (refused) refusedHere.set(event.endpointId, performance.now() + REFUSED_HERE_MS);
    const fate: WebhookAttemptFate = refused
      ? { kind: 'release' }
      : webhookAttemptFate(event, status, now(), options.random);
    // An erased user's endpoint goes after its last call: the attempt is counted as it ended.
    const kept = erasedEndpointFate(event, fate);
    try {
      await webhooks.recordWebhookAttempt(
        event,
        {
          endpointId: event.endpointId,
          eventId: event.eventId,
          at,
          status: outcome.status,
          error: outcome.error,
          ms: Math.round(outcome.ms),
        },
        kept,
      );
    } catch (err) {
      // Left leased: once the lease ends the event is sent again, with the same webhook-id.
      log.warn(
        { err, endpoint: event.endpointId, eventId: event.eventId },
        'webhooks: an attempt could not be recorded',
      );
      return;
    }
    options.onAttempt?.(label(fate));
    log.info(
      {
        endpoint: event.endpointId,
        eventId: event.eventId,
        type: event.type,
        status: outcome.status,
        error: outcome.error,
        detail: outcome.detail,
        ms: Math.round(outcome.ms),
        fate: kept.kind,
      },
      'webhook attempt',
    );
  }

  const watch: FeedWatch = signals.watchFeeds({ users: () => EVERY_USER, moved: wake, lost: wake });
  watch.interested();
  wake();

  return {
    wake,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      watch.close();
      await Promise.all([...inFlight]);
    },
  };
}

function label(fate: WebhookAttemptFate): WebhookAttemptOutcomeLabel {
  if (fate.kind === 'delivered') return 'delivered';
  return fate.kind === 'disable' ? 'disabled' : 'failed';
}
