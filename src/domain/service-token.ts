import { credentialFormat } from './credential-format.js';
import { randomId } from './random-id.js';

/**
 * Service tokens (docs/host-api.md#service-tokens): the host API's credentials, held by the
 * app's back end. The API keys' format with their own prefix (domain/credential-format.ts),
 * so the same checksum refuses a made-up token without a lookup and the same scanners find a
 * leaked one, while the prefix says it opens the host API, not one user's meals.
 */
export const SERVICE_TOKEN_PREFIX = 'mxs_';
const FORMAT = credentialFormat(SERVICE_TOKEN_PREFIX);

/** A new random token: shown once, stored as its digest. */
export function generateServiceToken(): string {
  return FORMAT.generate();
}

/** True when the text has the token format and its checksum matches. */
export function isWellFormedServiceToken(text: string): boolean {
  return FORMAT.isWellFormed(text);
}

/** The SHA-256 digest a token is stored as: the plain token is never kept. */
export function digestServiceToken(token: string): Buffer {
  return FORMAT.digest(token);
}

/** The part of a token safe to show again (`service-tokens list`): `mxs_` and 8 more characters. */
export function serviceTokenDisplayPrefix(token: string): string {
  return FORMAT.displayPrefix(token);
}

const ID_LENGTH = 16;

/** A new token id: `svc_` and 16 base62 characters (95 random bits), as key ids are made. */
export function newServiceTokenId(): string {
  return randomId('svc_', ID_LENGTH);
}

export const MAX_SERVICE_TOKEN_NAME_LENGTH = 100;
// C0 and C1 controls: a name is shown by `service-tokens list`, one token a line.
const CONTROL_CHARACTER_RE = /\p{Cc}/u;

/**
 * Why a (trimmed) name cannot be given to a token; undefined when it can. A name is required:
 * it is how the operator tells which back end holds which token before revoking one. The
 * length and characters are those of a key's name on the app page.
 */
export function serviceTokenNameProblem(name: string): string | undefined {
  if (name === '' || name.length > MAX_SERVICE_TOKEN_NAME_LENGTH || CONTROL_CHARACTER_RE.test(name)) {
    return `a service token's name is 1 to ${MAX_SERVICE_TOKEN_NAME_LENGTH} characters of text`;
  }
  return undefined;
}
