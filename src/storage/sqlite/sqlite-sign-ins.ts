import type { Database } from 'better-sqlite3';
import type { NewLoginToken, NewSession, SessionFlash, SessionRecord } from '../../domain/sign-in-records.js';
import type { SignInStore } from '../sign-in-store.js';
import type { Implementation } from '../guarded-concerns.js';

interface SessionRow {
  readonly user_id: string;
  readonly created_at: number;
  readonly expires_at: number;
}

/** SignInStore on SQLite: digests only. */
export function createSqliteSignIns(db: Database): Implementation<SignInStore> {
  const insertToken = db.prepare(
    'INSERT INTO login_tokens (digest, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
  );
  // One statement deletes and returns: of two processes consuming the same token, SQLite's
  // single writer lets exactly one delete the row and see it.
  const takeToken = db.prepare<[Buffer], { user_id: string; expires_at: number }>(
    'DELETE FROM login_tokens WHERE digest = ? RETURNING user_id, expires_at',
  );
  const insertSession = db.prepare(
    'INSERT INTO app_sessions (digest, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
  );
  const sessionByDigest = db.prepare<[Buffer, number], SessionRow>(
    'SELECT user_id, created_at, expires_at FROM app_sessions WHERE digest = ? AND expires_at > ?',
  );
  const lengthenSession = db.prepare(
    'UPDATE app_sessions SET expires_at = ? WHERE digest = ? AND expires_at > ? AND expires_at < ?',
  );
  const removeSession = db.prepare('DELETE FROM app_sessions WHERE digest = ?');
  const removeFlash = db.prepare('DELETE FROM app_session_flashes WHERE session_digest = ?');
  const endSession = db.transaction((digest: Buffer) => {
    removeSession.run(digest);
    removeFlash.run(digest);
  });
  const upsertFlash = db.prepare(
    `INSERT INTO app_session_flashes (session_digest, sealed, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (session_digest) DO UPDATE SET sealed = excluded.sealed, expires_at = excluded.expires_at`,
  );
  // As with login tokens: one statement deletes and returns, so one caller alone sees the flash.
  const takeFlash = db.prepare<[Buffer], { sealed: Buffer; expires_at: number }>(
    'DELETE FROM app_session_flashes WHERE session_digest = ? RETURNING sealed, expires_at',
  );
  const pruneTokens = db.prepare('DELETE FROM login_tokens WHERE expires_at <= ?');
  const pruneSessions = db.prepare('DELETE FROM app_sessions WHERE expires_at <= ?');
  const pruneFlashes = db.prepare('DELETE FROM app_session_flashes WHERE expires_at <= ?');
  const prune = db.transaction(
    (now: number) => pruneTokens.run(now).changes + pruneSessions.run(now).changes + pruneFlashes.run(now).changes,
  );

  return {
    createLoginToken(token: NewLoginToken): void {
      insertToken.run(token.digest, token.userId, token.createdAt, token.expiresAt);
    },
    consumeLoginToken(digest: Buffer, now: number): string | undefined {
      const row = takeToken.get(digest);
      return row !== undefined && row.expires_at > now ? row.user_id : undefined;
    },
    createSession(session: NewSession): void {
      insertSession.run(session.digest, session.userId, session.createdAt, session.expiresAt);
    },
    findSession(digest: Buffer, now: number): SessionRecord | undefined {
      const row = sessionByDigest.get(digest, now);
      return row === undefined
        ? undefined
        : { userId: row.user_id, createdAt: row.created_at, expiresAt: row.expires_at };
    },
    extendSession(digest: Buffer, expiresAt: number, now: number): void {
      lengthenSession.run(expiresAt, digest, now, expiresAt);
    },
    deleteSession(digest: Buffer): void {
      endSession.immediate(digest);
    },
    putSessionFlash(flash: SessionFlash): void {
      upsertFlash.run(flash.digest, flash.sealed, flash.expiresAt);
    },
    takeSessionFlash(digest: Buffer, now: number): Buffer | undefined {
      const row = takeFlash.get(digest);
      return row !== undefined && row.expires_at > now ? row.sealed : undefined;
    },
    pruneExpiredSignIns: (now: number): number => prune.immediate(now),
  };
}
