import type { Sql } from 'postgres';
import type { AppRecord, NewApp } from '../../domain/app-records.js';
import type { NewApiKey } from '../../domain/key-records.js';
import { APP_COLUMNS, type AppRow, appRecordOf } from '../app-rows.js';
import type { AppStore, IssueAppKeyResult } from '../app-store.js';
import { KEY_COLUMNS, type KeyRow, keyRecordOf } from '../key-rows.js';

const PREPARED = { prepare: true } as const;
const ACTIVE = 'revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $3)';

/** AppStore on PostgreSQL: secrets as digests only. */
export function createPostgresApps(sql: Sql): AppStore {
  async function one(query: string, parameters: (string | number | Buffer | null)[]): Promise<AppRecord | undefined> {
    const [row] = await sql.unsafe<AppRow[]>(query, parameters, PREPARED);
    return row === undefined ? undefined : appRecordOf(row);
  }

  return {
    async createApp(app: NewApp): Promise<AppRecord> {
      const record = await one(
        `INSERT INTO apps (id, name, redirect_uris, homepage_url, secret_digest, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${APP_COLUMNS}`,
        [app.id, app.name, JSON.stringify(app.redirectUris), app.homepageUrl, app.secretDigest, app.createdAt],
      );
      if (record === undefined) throw new Error('the app just inserted was not returned');
      return record;
    },

    async listApps(): Promise<AppRecord[]> {
      const rows = await sql.unsafe<AppRow[]>(`SELECT ${APP_COLUMNS} FROM apps ORDER BY created_at, id`, [], PREPARED);
      return rows.map(appRecordOf);
    },

    findApp: (id: string) => one(`SELECT ${APP_COLUMNS} FROM apps WHERE id = $1`, [id]),

    findAppBySecretDigest: (digest: Buffer) =>
      one(`SELECT ${APP_COLUMNS} FROM apps WHERE secret_digest = $1`, [digest]),

    /**
     * The row's delete waits for a key being issued through the app (issueAppKey holds the row
     * FOR SHARE), and the revocation after it, a statement of its own, sees that key committed.
     */
    deleteApp(id: string, now: number): Promise<{ revokedKeys: number } | undefined> {
      return sql.begin(async (tx) => {
        const deleted = await tx.unsafe('DELETE FROM apps WHERE id = $1 RETURNING id', [id], PREPARED);
        if (deleted.length === 0) return undefined;
        const revoked = await tx.unsafe(
          'UPDATE api_keys SET revoked_at = $2 WHERE app_id = $1 AND revoked_at IS NULL RETURNING id',
          [id, now],
          PREPARED,
        );
        return { revokedKeys: revoked.length };
      });
    },

    rotateAppSecret: (id: string, digest: Buffer, now: number) =>
      one(`UPDATE apps SET secret_digest = $2, secret_rotated_at = $3 WHERE id = $1 RETURNING ${APP_COLUMNS}`, [
        id,
        digest,
        now,
      ]),

    /**
     * Under the advisory lock on the user that createApiKey takes (postgres-keys.ts), so the
     * 10-key limit holds across both; with the app's row held FOR SHARE, so deleteApp cannot
     * pass between this check and the key's commit.
     */
    issueAppKey(key: NewApiKey, appId: string, maxActive: number, now: number): Promise<IssueAppKeyResult> {
      return sql.begin(async (tx) => {
        await tx.unsafe(
          "SELECT pg_advisory_xact_lock(hashtextextended('meal-export:keys:' || $1, 0))",
          [key.userId],
          PREPARED,
        );
        const [app] = await tx.unsafe('SELECT 1 FROM apps WHERE id = $1 FOR SHARE', [appId], PREPARED);
        if (app === undefined) return { ok: false, reason: 'unknown_app' } as const;
        const [taken] = await tx.unsafe('SELECT 1 FROM api_keys WHERE id = $1', [key.id], PREPARED);
        if (taken !== undefined) return { ok: false, reason: 'duplicate_id' } as const;
        const [counted] = await tx.unsafe<{ active: number }[]>(
          `SELECT count(*)::int AS active FROM api_keys
           WHERE user_id = $1 AND (app_id IS NULL OR app_id <> $2) AND ${ACTIVE}`,
          [key.userId, appId, now],
          PREPARED,
        );
        if ((counted?.active ?? 0) >= maxActive) return { ok: false, reason: 'too_many_keys' } as const;
        const revoked = await tx.unsafe<{ id: string }[]>(
          `UPDATE api_keys SET revoked_at = $3 WHERE user_id = $1 AND app_id = $2 AND revoked_at IS NULL
           RETURNING id`,
          [key.userId, appId, now],
          PREPARED,
        );
        const [row] = await tx.unsafe<KeyRow[]>(
          `INSERT INTO api_keys (id, user_id, name, prefix, digest, created_at, expires_at, app_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${KEY_COLUMNS}`,
          [key.id, key.userId, key.name, key.prefix, key.digest, key.createdAt, key.expiresAt, appId],
          PREPARED,
        );
        if (row === undefined) throw new Error('the key just inserted was not returned');
        return { ok: true, key: keyRecordOf(row), replaced: revoked.at(-1)?.id ?? null } as const;
      });
    },
  };
}
