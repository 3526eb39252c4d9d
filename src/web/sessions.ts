import type { Storage } from '../storage/storage.js';
import { digestSecretToken, isSecretTokenShaped, newSecretToken } from './secret-token.js';

/**
 * A session ends an hour after the page was last used (docs/app.md#staying-signed-in), and 12
 * hours after sign-in whatever happens: a stolen cookie does not live on by being used.
 */
export const SESSION_IDLE_MS = 60 * 60_000;
export const SESSION_MAX_MS = 12 * 60 * 60_000;
/** A request moves the end only when that gains more than this: not one store write per request. */
export const SESSION_EXTEND_STEP_MS = 5 * 60_000;

// __Host-: the browser keeps it only if Secure, Path=/ and without Domain, so no sibling
// subdomain can plant or overwrite it.
export const SESSION_COOKIE = '__Host-meal-export-session';

export interface Session {
  /** The raw id from the cookie: CSRF tokens derive from it (csrf.ts); never stored or logged. */
  readonly id: string;
  readonly userId: string;
  /** When it ends unless the page is used again. */
  readonly expiresAt: number;
  /** The latest it can ever end: sign-in plus SESSION_MAX_MS. */
  readonly endsAtLatest: number;
}

/** The end a session in use reaches at `now`: an hour on, but never past its latest. */
function slidEnd(session: Session, now: number): number {
  return Math.min(now + SESSION_IDLE_MS, session.endsAtLatest);
}

/** Sign-in, sessions and sign-out of the app page, over the store's digests (storage/sign-in-store.ts). */
export function createSessions(storage: Storage) {
  async function extend(session: Session, now: number): Promise<Session> {
    const expiresAt = slidEnd(session, now);
    if (expiresAt <= session.expiresAt) return session;
    await storage.signIns.extendSession(digestSecretToken(session.id), expiresAt, now);
    return { ...session, expiresAt };
  }

  return {
    /** Uses a login link's token up and opens a session; undefined when the link is spent or expired. */
    async signIn(token: string, now: number): Promise<Session | undefined> {
      if (!isSecretTokenShaped(token)) return undefined;
      const userId = await storage.signIns.consumeLoginToken(digestSecretToken(token), now);
      if (userId === undefined) return undefined;
      const id = newSecretToken();
      const expiresAt = now + SESSION_IDLE_MS;
      await storage.signIns.createSession({ digest: digestSecretToken(id), userId, createdAt: now, expiresAt });
      return { id, userId, expiresAt, endsAtLatest: now + SESSION_MAX_MS };
    },

    /**
     * The session the request's cookie names, while it lasts, its end moved on by this use
     * when that gains more than SESSION_EXTEND_STEP_MS.
     */
    async current(cookieHeader: string | undefined, now: number): Promise<Session | undefined> {
      const id = readCookie(cookieHeader, SESSION_COOKIE);
      if (id === undefined || !isSecretTokenShaped(id)) return undefined;
      const record = await storage.signIns.findSession(digestSecretToken(id), now);
      if (record === undefined) return undefined;
      const session = {
        id,
        userId: record.userId,
        expiresAt: record.expiresAt,
        endsAtLatest: record.createdAt + SESSION_MAX_MS,
      };
      return slidEnd(session, now) - session.expiresAt > SESSION_EXTEND_STEP_MS ? extend(session, now) : session;
    },

    /** "Stay signed in": the end moved on now, however little that gains. */
    stayLonger: (session: Session, now: number): Promise<Session> => extend(session, now),

    signOut: (session: Session) => storage.signIns.deleteSession(digestSecretToken(session.id)),
  };
}

export type Sessions = ReturnType<typeof createSessions>;

/**
 * Set-Cookie for a session, kept by the browser until the session's latest end: the store says
 * whether it ended before (an hour unused), and the page can then say so. HttpOnly (no script
 * reads it), Secure, SameSite=Lax: sent when a person follows a link from another site (the
 * app's own menu, a mail), which Strict would not, showing "signed out" beside a live session.
 * Every form is guarded by its CSRF token and its Origin (csrf.ts), not by the cookie; Lax
 * still keeps it off cross-site POSTs.
 */
export function sessionCookie(session: Session, now: number): string {
  const maxAge = Math.max(0, Math.floor((session.endsAtLatest - now) / 1000));
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
