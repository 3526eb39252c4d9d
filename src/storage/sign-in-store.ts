import type { NewLoginToken, NewSession, SessionRecord } from '../domain/sign-in-records.js';
import type { CallTraits } from './guarded-concerns.js';

/** The app page's sign-in links and sessions, as digests only. */
export interface SignInStore {
  createLoginToken(token: NewLoginToken): Promise<void>;
  /**
   * Uses up a login token, atomically: of any number of calls with the same digest, on any
   * number of instances at once, at most one returns the user id; the token is gone after it.
   * Undefined when the digest is unknown, already used, or expired (`expiresAt <= now`).
   */
  consumeLoginToken(digest: Buffer, now: number): Promise<string | undefined>;
  createSession(session: NewSession): Promise<void>;
  /** The session, while `expiresAt > now`; undefined once expired, deleted or unknown. */
  findSession(digest: Buffer, now: number): Promise<SessionRecord | undefined>;
  /**
   * Moves a live session's end to `expiresAt`, only ever later: of two requests extending at
   * once the later end stays. Nothing when the session has ended (`expiresAt <= now`) or is gone.
   */
  extendSession(digest: Buffer, expiresAt: number, now: number): Promise<void>;
  /** Ends a session (sign-out); idempotent. */
  deleteSession(digest: Buffer): Promise<void>;
  /** Removes login tokens and sessions expired at `now`; returns how many. */
  pruneExpiredSignIns(now: number): Promise<number>;
}

export const SIGN_IN_STORE_TRAITS: CallTraits<SignInStore> = { pruneExpiredSignIns: ['background'] };
