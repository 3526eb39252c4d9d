/**
 * The HMAC of a webhook call (docs/webhooks.md#the-call, after Standard Webhooks): HMAC-SHA256,
 * keyed with the secret's bytes, of `<webhook-id>.<webhook-timestamp>.<body>`, the body as its
 * UTF-8 bytes. The service's signer (webhooks/webhook-signature.ts) and the SDK's verifier
 * (verify-webhook.ts) both compute it here, so the two cannot come to sign different bytes.
 */
import { createHmac } from 'node:crypto';

export function webhookDigest(
  key: Uint8Array,
  webhookId: string,
  timestamp: string,
  body: string | Uint8Array,
): Uint8Array {
  return createHmac('sha256', key).update(`${webhookId}.${timestamp}.`, 'utf8').update(body).digest();
}
