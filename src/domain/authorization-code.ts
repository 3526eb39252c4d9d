import { hash, randomBytes } from 'node:crypto';

/** A code is redeemed within 60 s of the person's Allow, once (docs/connect.md#the-grant). */
export const AUTHORIZATION_CODE_TTL_MS = 60_000;

/** 256 random bits in base64url (43 characters): the code exists only in the redirect and the token request. */
export function newAuthorizationCode(): string {
  return randomBytes(32).toString('base64url');
}

/** What the store keeps of a code: its SHA-256 digest. */
export function digestAuthorizationCode(code: string): Buffer {
  return hash('sha256', code, 'buffer');
}
