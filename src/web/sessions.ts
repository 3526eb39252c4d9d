import type { Storage } from '../storage/storage.js';
import { digestSecretToken, isSecretTokenShaped, newSecretToken } from './secret-token.js';

/** A session ends this long after sign-in, whatever happens in between. */
export const SESSION_TTL_MS = 60 * 60_000;

// __Host-: the browser keeps it only if Secure, Path=/ and without Domain, so no sibling
// subdomain can plant or overwrite it.
export const SESSION_COOKIE = '__Host-meal-export-session';

export interface Session {
  /** The raw id from the cookie: CSRF tokens derive from it (csrf.ts); never stored or logged. */
  readonly id: string;
  readonly userId: string;
  readonly expiresAt: number;
}

/** Sign-in, sessions and sign-out of the app page, over the store's digests (storage/sign-in-store.ts). */
export function createSessions(storage: Storage) {
  return {
    /** Uses a login link's token up and opens a session; undefined when the link is spent or expired. */
    async signIn(token: string, now: number): Promise<Session | undefined> {
      if (!isSecretTokenShaped(token)) return undefined;
      const userId = await storage.signIns.consumeLoginToken(digestSecretToken(token), now);
      if (userId === undefined) return undefined;
      const id = newSecretToken();
      const expiresAt = now + SESSION_TTL_MS;
      await storage.signIns.createSession({ digest: digestSecretToken(id), userId, createdAt: now, expiresAt });
      return { id, userId, expiresAt };
    },

    /** The session the request's cookie names, while it lasts. */
    async current(cookieHeader: string | undefined, now: number): Promise<Session | undefined> {
      const id = readCookie(cookieHeader, SESSION_COOKIE);
      if (id === undefined || !isSecretTokenShaped(id)) return undefined;
      const record = await storage.signIns.findSession(digestSecretToken(id), now);
      return record === undefined ? undefined : { id, userId: record.userId, expiresAt: record.expiresAt };
    },

    signOut: (session: Session) => storage.signIns.deleteSession(digestSecretToken(session.id)),
  };
}

export type Sessions = ReturnType<typeof createSessions>;

/**
 * Set-Cookie for a session: HttpOnly (no script reads it), Secure, SameSite=Lax: sent when a
 * person follows a link from another site (the app's own menu, a mail), which Strict would
 * not, showing "signed out" beside a live session. Every form is guarded by its CSRF token and
 * its Origin (csrf.ts), not by the cookie; Lax still keeps it off cross-site POSTs.
 */
export function sessionCookie(session: Session, now: number): string {
  const maxAge = Math.max(0, Math.floor((session.expiresAt - now) / 1000));
  return `${SESSION_COOKIE}=${session.id}; Path=/; Max-Age=${maxAge}; HttpOnly; Secure; SameSite=Lax`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`;
}

/** One cookie's value from a Cookie header (RFC 6265 section 5.4: `name=value` pairs joined by "; "). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}
