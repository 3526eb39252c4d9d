/**
 * The signature of a webhook call (CONTRACT.md section 8; its secrets and ids: webhook-ids.ts),
 * after the Standard Webhooks specification (standardwebhooks.com): `v1,` + the base64 of
 * HMAC-SHA256, keyed with the secret's decoded bytes, of `<webhook-id>.<webhook-timestamp>.<body>`.
 */
import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

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
  const signed = `${webhookId}.${timestampS}.${body}`;
  return secrets
    .map((secret, index) => {
      const digest = createHmac('sha256', secretKey(secret, index)).update(signed, 'utf8').digest('base64');
      return `v1,${digest}`;
    })
    .join(' ');
}

function secretKey(secret: string, index: number): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : '';
  if (encoded === '' || !STRICT_BASE64.test(encoded)) {
    throw new TypeError(`webhook secret ${index + 1} is not "${SECRET_PREFIX}" followed by base64`);
  }
  return Buffer.from(encoded, 'base64');
}
