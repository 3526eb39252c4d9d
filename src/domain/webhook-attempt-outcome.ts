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

/**
 * Why an endpoint's changes wait, when its newest attempt says: the process that tried may not
 * call its address (its flags refuse loopback and private ranges), and leaves the changes to one
 * that may (docs/webhooks.md#where-calls-may-go). Shown by `webhooks list` and the app page.
 */
export function waitingReason(newest: Pick<WebhookAttemptRecord, 'error'> | undefined): string | undefined {
  if (newest?.error !== 'refused_address') return undefined;
  return 'its address is refused by the flags of the server that tried: the changes wait for a process that may call it (--webhook-allow-private)';
}
