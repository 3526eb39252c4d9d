import { APP_SECRET_PREFIX } from './app-secret.js';
import { credentialFormat } from './credential-format.js';
import { credentialLikePattern, redactCredentials, redactOAuthQuery } from './credential-redaction.js';
import type { ApiKeyRecord } from './key-records.js';
import { SERVICE_TOKEN_PREFIX } from './service-token.js';

/**
 * API keys (docs/api.md#keys): `mxk_` + 43 base62 characters (32 random bytes) + 6 base62
 * characters of the CRC32 of those 43, the format every credential shares
 * (domain/credential-format.ts).
 */
export const KEY_PREFIX = 'mxk_';
const FORMAT = credentialFormat(KEY_PREFIX);

/** A new random key, in the contract's format. */
export function generateApiKey(): string {
  return FORMAT.generate();
}

/** True when the text has the key format and its checksum matches. */
export function isWellFormedApiKey(text: string): boolean {
  return FORMAT.isWellFormed(text);
}

/** The SHA-256 digest a key is stored as: the plain key is never kept. */
export function digestApiKey(key: string): Buffer {
  return FORMAT.digest(key);
}

/** The part of a key safe to show again (`keys list`). */
export function displayPrefix(key: string): string {
  return FORMAT.displayPrefix(key);
}

// Every kind of credential the service hands out: a log line must hold none of them.
const CREDENTIAL_LIKE_RE = credentialLikePattern([KEY_PREFIX, SERVICE_TOKEN_PREFIX, APP_SECRET_PREFIX]);

/**
 * Text safe for logs: every API key, service token and app client secret in it, even
 * percent-encoded once or twice, becomes `mxk_[redacted]`, `mxs_[redacted]` or
 * `mxa_[redacted]` (domain/credential-redaction.ts).
 */
export function redactApiKeys(text: string): string {
  return redactCredentials(text, CREDENTIAL_LIKE_RE);
}

/** A request's URL as logs show it: its credentials redacted (redactApiKeys), and Connect's query secrets. */
export function loggedUrl(url: string): string {
  return redactOAuthQuery(redactApiKeys(url));
}

/** True while a key authenticates: not revoked, not expired (docs/api.md#keys). */
export function isActiveKey(key: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, now: number): boolean {
  return key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);
}
