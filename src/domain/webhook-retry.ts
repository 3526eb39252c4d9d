import type { ClaimedWebhookEvent, WebhookAttemptFate } from './webhook-records.js';

/**
 * docs/webhooks.md#the-call: a failed attempt is retried 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and
 * 10 h after the previous one, each ± 10 %; after the last the endpoint is disabled, and so it
 * is at once on `410 Gone`. A `2xx` delivers. While the endpoint has delivered an event within
 * the last hour (a receiver that refuses now and then, not one that is down), the event is also
 * tried every 30 s between those steps, tries that do not count as steps.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];
const JITTER = 0.1;
/** How recent a delivery must be for the receiver to count as up. */
export const RECENT_DELIVERY_MS = 3_600_000;
/** The longest wait between two tries while the receiver is up. */
export const EXTRA_TRY_MS = 30_000;

/**
 * What becomes of an attempt of `event`: `status` is the HTTP status answered, or null
 * (refused, timeout, connection failure); `random` is in [0, 1). An attempt made when the
 * schedule's step was due is that step (it counts, and the next step is scheduled from now);
 * one made before is an extra try (it keeps the step where it was).
 */
export function webhookAttemptFate(
  event: Pick<ClaimedWebhookEvent, 'attempts' | 'stepDueAt' | 'lastDeliveredAt'>,
  status: number | null,
  now: number,
  random: () => number = Math.random,
): WebhookAttemptFate {
  if (status !== null && status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'disable' };
  const counted = event.stepDueAt === undefined || now >= event.stepDueAt;
  let stepAt = event.stepDueAt ?? now;
  if (counted) {
    const delay = WEBHOOK_RETRY_DELAYS_MS[event.attempts];
    if (delay === undefined) return { kind: 'disable' };
    stepAt = now + Math.round(delay * (1 - JITTER + 2 * JITTER * random()));
  }
  const receiverIsUp = event.lastDeliveredAt !== undefined && now - event.lastDeliveredAt < RECENT_DELIVERY_MS;
  return { kind: 'retry', at: receiverIsUp ? Math.min(stepAt, now + EXTRA_TRY_MS) : stepAt, stepAt, counted };
}

/** How long an erased user's endpoint is tried with its `user.erased` event (docs/webhooks.md#when-a-user-is-erased). */
export const ERASED_NOTICE_MS = 24 * 3_600_000;

/**
 * What becomes of an erased user's endpoint after an attempt of its `user.erased` event: it
 * lives only for that call, so it goes once the call is delivered, refused for good (`410`,
 * the end of the schedule), or its next try would fall past 24 hours from the erasure.
 * Any other attempt keeps `fate`.
 */
export function erasedEndpointFate(
  event: Pick<ClaimedWebhookEvent, 'erased' | 'type' | 'createdAt'>,
  fate: WebhookAttemptFate,
): WebhookAttemptFate {
  if (!event.erased || event.type !== 'user.erased' || fate.kind === 'release') return fate;
  if (fate.kind === 'retry' && fate.at <= event.createdAt + ERASED_NOTICE_MS) return fate;
  return { kind: 'forget' };
}
