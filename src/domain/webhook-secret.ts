/**
 * The text of a webhook signing secret: `whsec_` and the base64 of the key's bytes, as Standard
 * Webhooks (standardwebhooks.com) writes it and the service shows it once
 * (docs/webhooks.md#registering-an-endpoint). The one codec of the secrets' maker
 * (webhook-ids.ts), the service's signer (webhooks/webhook-signature.ts) and the SDK's verifier
 * (client/verify-webhook.ts), which ships it. Its declarations
 * name only Uint8Array, so the SDK's types still need no @types/node.
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Padded base64 of the standard alphabet only: Buffer would decode anything, loosely. */
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * What a secret without the prefix is: `refuse`d (the service signs only with secrets it made),
 * or `accept`ed as bare base64, as the Standard Webhooks libraries accept it from a receiver.
 */
export type UnprefixedSecret = 'refuse' | 'accept';

/** The key's bytes; undefined when the text is not `whsec_` + base64 (nor, if accepted, bare base64). */
export function decodeWebhookSecret(secret: string, unprefixed: UnprefixedSecret): Uint8Array | undefined {
  let encoded = '';
  if (secret.startsWith(WEBHOOK_SECRET_PREFIX)) encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  else if (unprefixed === 'accept') encoded = secret;
  if (encoded === '' || !STRICT_BASE64.test(encoded)) return undefined;
  return Buffer.from(encoded, 'base64');
}

/** The secret's text for the key's bytes. */
export function encodeWebhookSecret(key: Uint8Array): string {
  return `${WEBHOOK_SECRET_PREFIX}${Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('base64')}`;
}
