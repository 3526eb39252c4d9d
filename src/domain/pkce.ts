import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * PKCE (RFC 7636) with `S256` only (docs/connect.md#the-grant): the app sends
 * `code_challenge = BASE64URL(SHA256(code_verifier))` with the authorization request and the
 * verifier itself with the code, so a code caught on its way back is no use without it.
 */
export const PKCE_METHOD = 'S256';

/** A challenge or a verifier: 43 to 128 characters of RFC 7636's unreserved alphabet. */
const PKCE_VALUE_RE = /^[A-Za-z0-9._~-]{43,128}$/;

export function isPkceValue(value: string): boolean {
  return PKCE_VALUE_RE.test(value);
}

/** The S256 challenge of a verifier. */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Whether `verifier` is the one the challenge was made from, compared in constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!isPkceValue(verifier)) return false;
  const made = Buffer.from(s256Challenge(verifier));
  const given = Buffer.from(challenge);
  return made.length === given.length && timingSafeEqual(made, given);
}
