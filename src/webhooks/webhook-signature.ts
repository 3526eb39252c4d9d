/**
 * The signature of a webhook call (docs/webhooks.md#the-call), after the Standard Webhooks
 * specification (standardwebhooks.com): `v1,` + the base64 of the HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>`. The secret's form and the HMAC are the SDK's own
 * code (domain/webhook-secret.ts, client/webhook-digest.ts), so what is signed here is what
 * verifyWebhook checks. The secrets and ids themselves are made in webhook-ids.ts.
 */
import { webhookDigest } from '../client/webhook-digest.js';
import { decodeWebhookSecret, WEBHOOK_SECRET_PREFIX } from '../domain/webhook-secret.js';

/**
 * The `webhook-signature` header: one `v1,<base64>` entry per secret, joined by a space, so that
 * a receiver holding either the old or the new secret accepts the call while a rotation is live.
 * Throws a TypeError, which never quotes the secret, when a secret is not `whsec_` + base64.
 */
export function signWebhook(secrets: readonly string[], webhookId: string, timestampS: number, body: string): string {
  if (secrets.length === 0) throw new TypeError('signWebhook needs at least one secret');
  if (!Number.isSafeInteger(timestampS) || timestampS < 0) {
    throw new TypeError(`signWebhook needs the timestamp in whole Unix seconds, got ${timestampS}`);
  }
  const timestamp = String(timestampS);
  return secrets
    .map((secret, index) => {
      const digest = webhookDigest(secretKey(secret, index), webhookId, timestamp, body);
      return `v1,${Buffer.from(digest).toString('base64')}`;
    })
    .join(' ');
}

function secretKey(secret: string, index: number): Uint8Array {
  const key = decodeWebhookSecret(secret, 'refuse');
  if (key === undefined) {
    throw new TypeError(`webhook secret ${index + 1} is not "${WEBHOOK_SECRET_PREFIX}" followed by base64`);
  }
  return key;
}
