import type { Storage } from '../storage/storage.js';
import { digestSecretToken, newSecretToken } from './secret-token.js';

/** A login link opens a session when used within 15 minutes, once (docs/cli.md#users). */
export const LOGIN_LINK_TTL_MS = 15 * 60_000;
/** The page's sign-in route; the token travels in its query. */
export const LOGIN_PATH = '/login';

export interface LoginLink {
  readonly url: string;
  readonly expiresAt: number;
}

/**
 * Mints a one-time login link for a user: the host app's back end calls it (through
 * `meal-export/host` or `meal-export users login-link`) and sends the user to the URL. Only the
 * token's digest is stored; the link is the one place the token exists. `next`: a path of the
 * page the person lands on once signed in (a Connect request), checked by the caller.
 */
export async function mintLoginLink(
  storage: Storage,
  userId: string,
  publicUrl: string,
  now: number,
  next?: string,
): Promise<LoginLink> {
  const token = newSecretToken();
  const expiresAt = now + LOGIN_LINK_TTL_MS;
  await storage.signIns.createLoginToken({ digest: digestSecretToken(token), userId, createdAt: now, expiresAt });
  const url = new URL(LOGIN_PATH, publicUrl);
  url.searchParams.set('token', token);
  // Where the link lands once signed in (domain/page-path.ts checked it): the sign-in form carries it on.
  if (next !== undefined) url.searchParams.set('next', next);
  return { url: url.href, expiresAt };
}
