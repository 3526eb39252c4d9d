import type { NewLoginToken, NewSession, SessionFlash, SessionRecord } from '../domain/sign-in-records.js';
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
  /** Ends a session (sign-out) and drops its flash; idempotent. */
  deleteSession(digest: Buffer): Promise<void>;
  /** Keeps a flash for the session's next page, in place of any it had. */
  putSessionFlash(flash: SessionFlash): Promise<void>;
  /**
   * Takes the session's flash, atomically: of any number of calls at once, at most one gets it,
   * and it is gone after. Undefined when there is none or it expired (`expiresAt <= now`).
   */
  takeSessionFlash(digest: Buffer, now: number): Promise<Buffer | undefined>;
  /** Removes login tokens, sessions and flashes expired at `now`; returns how many. */
  pruneExpiredSignIns(now: number): Promise<number>;
}

export const SIGN_IN_STORE_TRAITS: CallTraits<SignInStore> = { pruneExpiredSignIns: ['background'] };
