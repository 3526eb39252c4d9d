import type { WebhookAttemptRecord } from './webhook-records.js';

/**
 * What became of a webhook attempt, in the words every place that shows one uses (`webhooks list`,
 * `webhooks attempts`, the app page): `HTTP 204` when the receiver answered, else the sender's
 * short reason exactly as stored (`refused_address`, `timeout`, ...), so the text and the `--json`
 * `error` field name one fate with one word. `no answer` only for a record with neither, which the
 * sender never writes.
 */
export function describeAttemptOutcome(attempt: Pick<WebhookAttemptRecord, 'status' | 'error'>): string {
  if (attempt.status !== null) return `HTTP ${attempt.status}`;
  return attempt.error ?? 'no answer';
}
