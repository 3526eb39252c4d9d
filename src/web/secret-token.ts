import { hash, randomBytes } from 'node:crypto';

/**
 * Bearer secrets of the app page (login-link tokens, session ids): 32 random bytes in
 * base64url, and the SHA-256 digest they are stored as, so a copy of the store lets no one in.
 */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

export function digestSecretToken(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/** A token this module could have made: 43 base64url characters (anything else is not looked up). */
export function isSecretTokenShaped(text: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(text);
}
