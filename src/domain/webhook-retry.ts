import type { WebhookAttemptFate } from './webhook-records.js';

/**
 * docs/webhooks.md#the-call: a failed attempt is retried 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and
 * 10 h after the previous one, each ± 10 %; after the last the endpoint is disabled, and so it
 * is at once on `410 Gone`. A `2xx` delivers.
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

/**
 * What becomes of an attempt: `attemptsBefore` is how many attempts the event had before this
 * one; `status` the HTTP status answered, or null (refused, timeout, connection failure).
 * `random` is in [0, 1).
 */
export function webhookAttemptFate(
  attemptsBefore: number,
  status: number | null,
  now: number,
  random: () => number = Math.random,
): WebhookAttemptFate {
  if (status !== null && status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'disable' };
  const delay = WEBHOOK_RETRY_DELAYS_MS[attemptsBefore];
  if (delay === undefined) return { kind: 'disable' };
  const jittered = delay * (1 - JITTER + 2 * JITTER * random());
  return { kind: 'retry', at: now + Math.round(jittered) };
}
