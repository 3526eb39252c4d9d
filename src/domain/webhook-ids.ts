import { randomBytes } from 'node:crypto';
import { randomId } from './random-id.js';
import { encodeWebhookSecret } from './webhook-secret.js';

/**
 * The random names of webhooks (docs/webhooks.md), never sequential: endpoint ids, the
 * secrets webhook-signature.ts signs with, and event ids.
 */

const ENDPOINT_ID_LENGTH = 22;
const ENDPOINT_ID_RE = new RegExp(`^wh_[0-9A-Za-z]{${ENDPOINT_ID_LENGTH}}$`);

/** An endpoint's id: `wh_` and 22 base62 characters (131 random bits). */
export function newWebhookEndpointId(): string {
  return randomId('wh_', ENDPOINT_ID_LENGTH);
}

/** True when the text could be an id newWebhookEndpointId made (a form's chosen id is checked with it). */
export function isWebhookEndpointId(text: string): boolean {
  return ENDPOINT_ID_RE.test(text);
}

/** An endpoint's signing secret: `whsec_` and the base64 of 32 random bytes (Standard Webhooks). */
export function newWebhookSecret(): string {
  return encodeWebhookSecret(randomBytes(32));
}

const EVENT_ID_BYTES = 16;

/**
 * An event's id (the `webhook-id` header): `msg_` and 32 hex digits, the form the stores make
 * for the events a change queues (sqlite-webhook-outbox.ts, postgres-functions-commit.ts), so
 * that every event id looks alike whoever made it.
 */
export function newWebhookEventId(): string {
  return eventIdOf(randomBytes(EVENT_ID_BYTES));
}

/** `count` event ids at once, as newWebhookEventId makes them, from one draw of random bytes. */
export function newWebhookEventIds(count: number): string[] {
  const bytes = randomBytes(EVENT_ID_BYTES * count);
  return Array.from({ length: count }, (_, i) =>
    eventIdOf(bytes.subarray(i * EVENT_ID_BYTES, (i + 1) * EVENT_ID_BYTES)),
  );
}

const eventIdOf = (bytes: Buffer): string => `msg_${bytes.toString('hex')}`;

const EVENT_ID_RE = /^msg_[0-9a-f]{32}$/;

/** True when the text could be an event id newWebhookEventId made (the app page's address names its test call). */
export function isWebhookEventId(text: string): boolean {
  return EVENT_ID_RE.test(text);
}
