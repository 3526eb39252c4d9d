import type { Sql } from 'postgres';
import type { ApiKeyRecord, CreateKeyResult, NewApiKey } from '../storage.js';

const PREPARED = { prepare: true } as const;
const KEY_COLUMNS = 'id, user_id, name, prefix, created_at, expires_at, last_used_at, revoked_at';

interface KeyRow {
  readonly id: string;
  readonly user_id: string;
  readonly name: string;
  readonly prefix: string;
  readonly created_at: number;
  readonly expires_at: number | null;
  readonly last_used_at: number | null;
  readonly revoked_at: number | null;
}

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** The API-key half of the PostgreSQL adapter: digests only, never a plain key. */
export function createPostgresKeys(sql: Sql) {
  async function byId(keyId: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await sql.unsafe<KeyRow[]>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [keyId], PREPARED);
    return row === undefined ? undefined : toRecord(row);
  }

  return {
    /**
     * Count and insert under a transaction-scoped advisory lock on the user: two concurrent
     * creations for one user run one after the other, so the 10-key limit holds (no
     * count-then-insert race); other users are not held up.
     */
    createApiKey(key: NewApiKey, maxActive: number, now: number): Promise<CreateKeyResult> {
      return sql.begin(async (tx) => {
        await tx.unsafe(
          "SELECT pg_advisory_xact_lock(hashtextextended('meal-export:keys:' || $1, 0))",
          [key.userId],
          PREPARED,
        );
        const [counted] = await tx.unsafe<{ active: number }[]>(
          'SELECT count(*)::int AS active FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)',
          [key.userId, now],
          PREPARED,
        );
        if ((counted?.active ?? 0) >= maxActive) return { ok: false, reason: 'too_many_keys' } as const;
        const [row] = await tx.unsafe<KeyRow[]>(
          `INSERT INTO api_keys (id, user_id, name, prefix, digest, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${KEY_COLUMNS}`,
          [key.id, key.userId, key.name, key.prefix, key.digest, key.createdAt, key.expiresAt],
          PREPARED,
        );
        if (row === undefined) throw new Error('the key just inserted was not returned');
        return { ok: true, key: toRecord(row) } as const;
      });
    },

    async listApiKeys(userId: string): Promise<ApiKeyRecord[]> {
      const rows = await sql.unsafe<KeyRow[]>(
        `SELECT ${KEY_COLUMNS} FROM api_keys WHERE user_id = $1 ORDER BY created_at, id`,
        [userId],
        PREPARED,
      );
      return rows.map(toRecord);
    },

    async revokeApiKey(keyId: string, now: number): Promise<ApiKeyRecord | undefined> {
      await sql.unsafe(
        'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL',
        [keyId, now],
        PREPARED,
      );
      return byId(keyId);
    },

    async findApiKeyByDigest(digest: Buffer): Promise<ApiKeyRecord | undefined> {
      const [row] = await sql.unsafe<KeyRow[]>(
        `SELECT ${KEY_COLUMNS} FROM api_keys WHERE digest = $1`,
        [digest],
        PREPARED,
      );
      return row === undefined ? undefined : toRecord(row);
    },

    /** All the uses of one flush in one statement; lastUsedAt never moves back. */
    async recordKeyUse(lastUsed: ReadonlyMap<string, number>): Promise<void> {
      if (lastUsed.size === 0) return;
      await sql.unsafe(
        `UPDATE api_keys AS key SET last_used_at = used.at
         FROM unnest($1::text[], $2::bigint[]) AS used(id, at)
         WHERE key.id = used.id AND (key.last_used_at IS NULL OR key.last_used_at < used.at)`,
        [[...lastUsed.keys()], [...lastUsed.values()]],
        PREPARED,
      );
    },
  };
}
