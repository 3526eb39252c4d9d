import type { Sql } from 'postgres';
import type { SignInStore } from '../sign-in-store.js';
import type { NewLoginToken, NewSession, SessionFlash, SessionRecord } from '../../domain/sign-in-records.js';

const PREPARED = { prepare: true } as const;

interface SessionRow {
  readonly user_id: string;
  readonly created_at: number;
  readonly expires_at: number;
}

/** The app page's login tokens and sessions in PostgreSQL: digests only. */
export function createPostgresSignIns(sql: Sql): SignInStore {
  return {
    async createLoginToken(token: NewLoginToken): Promise<void> {
      await sql.unsafe(
        'INSERT INTO login_tokens (digest, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)',
        [token.digest, token.userId, token.createdAt, token.expiresAt],
        PREPARED,
      );
    },

    /**
     * One statement deletes and returns: of two instances consuming the same token at once,
     * the row lock lets exactly one delete it and see it; the other deletes nothing.
     */
    async consumeLoginToken(digest: Buffer, now: number): Promise<string | undefined> {
      const [row] = await sql.unsafe<{ user_id: string; expires_at: number }[]>(
        'DELETE FROM login_tokens WHERE digest = $1 RETURNING user_id, expires_at',
        [digest],
        PREPARED,
      );
      return row !== undefined && row.expires_at > now ? row.user_id : undefined;
    },

    async createSession(session: NewSession): Promise<void> {
      await sql.unsafe(
        'INSERT INTO app_sessions (digest, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)',
        [session.digest, session.userId, session.createdAt, session.expiresAt],
        PREPARED,
      );
    },

    async findSession(digest: Buffer, now: number): Promise<SessionRecord | undefined> {
      const [row] = await sql.unsafe<SessionRow[]>(
        'SELECT user_id, created_at, expires_at FROM app_sessions WHERE digest = $1 AND expires_at > $2',
        [digest, now],
        PREPARED,
      );
      return row === undefined
        ? undefined
        : { userId: row.user_id, createdAt: row.created_at, expiresAt: row.expires_at };
    },

    async extendSession(digest: Buffer, expiresAt: number, now: number): Promise<void> {
      await sql.unsafe(
        'UPDATE app_sessions SET expires_at = $1 WHERE digest = $2 AND expires_at > $3 AND expires_at < $1',
        [expiresAt, digest, now],
        PREPARED,
      );
    },

    async deleteSession(digest: Buffer): Promise<void> {
      await sql.unsafe(
        `WITH flash AS (DELETE FROM app_session_flashes WHERE session_digest = $1)
         DELETE FROM app_sessions WHERE digest = $1`,
        [digest],
        PREPARED,
      );
    },

    async putSessionFlash(flash: SessionFlash): Promise<void> {
      await sql.unsafe(
        `INSERT INTO app_session_flashes (session_digest, sealed, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (session_digest) DO UPDATE SET sealed = excluded.sealed, expires_at = excluded.expires_at`,
        [flash.digest, flash.sealed, flash.expiresAt],
        PREPARED,
      );
    },

    /** As consumeLoginToken: the row lock lets one of several takers delete the row and see it. */
    async takeSessionFlash(digest: Buffer, now: number): Promise<Buffer | undefined> {
      const [row] = await sql.unsafe<{ sealed: Buffer; expires_at: number }[]>(
        'DELETE FROM app_session_flashes WHERE session_digest = $1 RETURNING sealed, expires_at',
        [digest],
        PREPARED,
      );
      return row !== undefined && row.expires_at > now ? row.sealed : undefined;
    },

    async pruneExpiredSignIns(now: number): Promise<number> {
      const [row] = await sql.unsafe<{ pruned: number }[]>(
        `WITH tokens AS (DELETE FROM login_tokens WHERE expires_at <= $1 RETURNING 1),
              sessions AS (DELETE FROM app_sessions WHERE expires_at <= $1 RETURNING 1),
              flashes AS (DELETE FROM app_session_flashes WHERE expires_at <= $1 RETURNING 1)
         SELECT (SELECT count(*) FROM tokens)::int + (SELECT count(*) FROM sessions)::int
              + (SELECT count(*) FROM flashes)::int AS pruned`,
        [now],
        PREPARED,
      );
      return Number(row?.pruned ?? 0);
    },
  };
}
