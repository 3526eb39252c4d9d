/**
 * Verifies a webhook call from the service (docs/webhooks.md#a-complete-receiver), after the Standard
 * Webhooks specification (standardwebhooks.com): the call is fresh, and one of its `v1` signatures is
 * HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>` keyed with the endpoint's secret, by the
 * code the service signs with (webhook-digest.ts). node:crypto only: the SDK has no dependency but Node.
 *
 *   const event = verifyWebhook(process.env.MEAL_EXPORT_WEBHOOK_SECRET, request.headers, rawBody);
 *   if (event.type === 'meals.changed') await syncFromSavedPosition();
 */
import { timingSafeEqual } from 'node:crypto';
import { MealExportWebhookVerificationError } from './errors.js';
import { webhookDigest } from './webhook-digest.js';
import { decodeWebhookSecret } from '../domain/webhook-secret.js';

/** Meals of `data.userId` changed between `from` and `through` (their `modifiedAt`): sync to see them. */
export interface MealsChangedEvent {
  readonly type: 'meals.changed';
  readonly timestamp: string;
  readonly data: { readonly userId: string; readonly from: string; readonly through: string };
}

/** A test call, sent from the app page or `webhooks test`. */
export interface WebhookTestEvent {
  readonly type: 'webhook.test';
  readonly timestamp: string;
  readonly data: { readonly userId: string };
}

/**
 * The user was erased from the service (their account deleted in the diet app): delete your copy
 * of `data.userId`'s meals and forget their key, which no longer works. The endpoint's last call:
 * it is removed after it (docs/webhooks.md#when-a-user-is-erased).
 */
export interface UserErasedEvent {
  readonly type: 'user.erased';
  readonly timestamp: string;
  readonly data: { readonly userId: string };
}

/** What the service sends. A later version may add types: switch on `type` with a default that ignores. */
export type WebhookEvent = MealsChangedEvent | WebhookTestEvent | UserErasedEvent;

/** node:http's `request.headers`, any record of header names (in any case), or a fetch `Headers`. */
export type WebhookHeaders =
  Readonly<Record<string, string | readonly string[] | undefined>> | { get(name: string): string | null };

export interface VerifyWebhookOptions {
  /** How far the call's timestamp may be from now, either way, in seconds (default 300). */
  readonly toleranceS?: number;
  /** Now, as a Date or Unix milliseconds (default the clock). */
  readonly now?: Date | number;
}

const DEFAULT_TOLERANCE_S = 300;

/**
 * Returns the event when the call is the service's and fresh; else throws a
 * MealExportWebhookVerificationError saying which check failed. `body` must be the raw body as
 * received, before any JSON parsing. Throws a TypeError for a secret that is not
 * `whsec_` + base64 (a configuration error, not a bad call).
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const key = secretKey(secret);
  const id = headerValue(headers, 'webhook-id');
  const timestamp = headerValue(headers, 'webhook-timestamp');
  const signatures = headerValue(headers, 'webhook-signature');

  if (!/^\d{1,15}$/.test(timestamp)) {
    throw new MealExportWebhookVerificationError('timestamp', 'webhook-timestamp is not Unix seconds');
  }
  const toleranceS = options.toleranceS ?? DEFAULT_TOLERANCE_S;
  const nowMs = options.now instanceof Date ? options.now.getTime() : (options.now ?? Date.now());
  const ageS = Math.floor(nowMs / 1000) - Number(timestamp);
  if (ageS > toleranceS) {
    throw new MealExportWebhookVerificationError('timestamp', `the call is ${ageS} s old, more than ${toleranceS} s`);
  }
  if (-ageS > toleranceS) {
    throw new MealExportWebhookVerificationError(
      'timestamp',
      `the call is dated ${-ageS} s ahead, more than ${toleranceS} s`,
    );
  }

  const expected = webhookDigest(key, id, timestamp, body);
  // Every entry is compared: while the endpoint's secret is being rotated, the call carries two.
  let matched = false;
  for (const entry of signatures.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(entry.slice(comma + 1), 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) {
    throw new MealExportWebhookVerificationError(
      'signature',
      'no v1 signature in webhook-signature matches the secret (another endpoint, a rotated-out secret, or a changed body)',
    );
  }
  return parseEvent(body);
}

/** The key's bytes; a bare base64 secret is taken too, as the Standard Webhooks libraries take it. */
function secretKey(secret: string): Uint8Array {
  const key = decodeWebhookSecret(secret, 'accept');
  if (key === undefined) {
    throw new TypeError('verifyWebhook: the secret is not "whsec_" followed by base64, as the service showed it');
  }
  return key;
}

function headerValue(headers: WebhookHeaders, name: string): string {
  let value: string | readonly string[] | null | undefined;
  if (typeof headers.get === 'function') {
    value = (headers as { get(name: string): string | null }).get(name);
  } else {
    const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
    const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  if (typeof value !== 'string') {
    // node:http keeps a repeated unknown header as one string, joined by ', '; an array comes from elsewhere.
    if (value !== null && value !== undefined && value.length === 1) return value[0] ?? '';
    const problem = value === null || value === undefined || value.length === 0 ? 'missing' : 'repeated';
    throw new MealExportWebhookVerificationError('headers', `the ${name} header is ${problem}`);
  }
  if (value === '') throw new MealExportWebhookVerificationError('headers', `the ${name} header is empty`);
  return value;
}

function parseEvent(body: string | Uint8Array): WebhookEvent {
  let parsed: unknown;
  try {
    const text =
      typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString();
    parsed = JSON.parse(text);
  } catch (error) {
    throw new MealExportWebhookVerificationError('payload', 'the signed body is not JSON', { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new MealExportWebhookVerificationError('payload', 'the signed body is not a JSON object');
  }
  return parsed as WebhookEvent;
}
