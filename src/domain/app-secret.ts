import { credentialFormat } from './credential-format.js';
import { randomId } from './random-id.js';

/**
 * Apps' client secrets (docs/host-api.md#apps-connect): what a third party's server sends to
 * authenticate as its app. The API keys' format with their own prefix
 * (domain/credential-format.ts), so the same checksum refuses a made-up secret without a
 * lookup and the same scanners find a leaked one, while the prefix says whose it is.
 */
export const APP_SECRET_PREFIX = 'mxa_';
const FORMAT = credentialFormat(APP_SECRET_PREFIX);

/** A new random client secret: shown once, stored as its digest. */
export function generateAppSecret(): string {
  return FORMAT.generate();
}

/** True when the text has the client secret format and its checksum matches. */
export function isWellFormedAppSecret(text: string): boolean {
  return FORMAT.isWellFormed(text);
}

/** The SHA-256 digest a client secret is stored as: the plain secret is never kept. */
export function digestAppSecret(secret: string): Buffer {
  return FORMAT.digest(secret);
}

const ID_LENGTH = 16;

/** A new app id: `app_` and 16 base62 characters (95 random bits), as key ids are made. */
export function newAppId(): string {
  return randomId('app_', ID_LENGTH);
}
