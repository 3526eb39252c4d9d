import type { Sql } from 'postgres';
import type { ApiKeyRecord, NewApiKey } from '../../domain/key-records.js';
import type { CreateKeyResult, KeyStore } from '../key-store.js';
import { KEY_COLUMNS, type KeyRow, keyRecordOf } from '../key-rows.js';

const PREPARED = { prepare: true } as const;
/** The type oid of bytea[]: postgres.js sends the Buffers as one binary-safe array parameter. */
const BYTEA_ARRAY = 1001;

/** KeyStore on PostgreSQL: digests only, never a plain key. */
export function createPostgresKeys(sql: Sql): KeyStore {
  async function byId(keyId: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await sql.unsafe<KeyRow[]>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [keyId], PREPARED);
    return row === undefined ? undefined : keyRecordOf(row);
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
        // The same creation sent twice: after the first under this user's lock, so it sees it. The
        // id is random, so no other user's key has it; if one did, the insert's unique index would refuse it.
        const [taken] = await tx.unsafe('SELECT 1 FROM api_keys WHERE id = $1', [key.id], PREPARED);
        if (taken !== undefined) return { ok: false, reason: 'duplicate_id' } as const;
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
        return { ok: true, key: keyRecordOf(row) } as const;
      });
    },

    async listApiKeys(userId: string): Promise<ApiKeyRecord[]> {
      const rows = await sql.unsafe<KeyRow[]>(
        `SELECT ${KEY_COLUMNS} FROM api_keys WHERE user_id = $1 ORDER BY created_at, id`,
        [userId],
        PREPARED,
      );
      return rows.map(keyRecordOf);
    },

    async revokeApiKey(keyId: string, now: number): Promise<ApiKeyRecord | undefined> {
      await sql.unsafe(
        'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL',
        [keyId, now],
        PREPARED,
      );
      return byId(keyId);
    },

    /** One statement for the batch: each digest probes the unique index; `n` puts the answers back in order. */
    async findApiKeysByDigests(digests: readonly Buffer[]): Promise<(ApiKeyRecord | undefined)[]> {
      const found: (ApiKeyRecord | undefined)[] = digests.map(() => undefined);
      if (digests.length === 0) return found;
      const rows = await sql.unsafe<(KeyRow & { n: number })[]>(
        `SELECT asked.n::int AS n, ${KEY_COLUMNS}
         FROM unnest($1::bytea[]) WITH ORDINALITY AS asked (digest, n)
         JOIN api_keys USING (digest)`,
        [sql.array([...digests], BYTEA_ARRAY)],
        PREPARED,
      );
      for (const row of rows) found[row.n - 1] = keyRecordOf(row);
      return found;
    },

    async acceptedKeyIds(keyIds: readonly string[], now: number): Promise<ReadonlySet<string>> {
      if (keyIds.length === 0) return new Set();
      const rows = await sql.unsafe<{ id: string }[]>(
        `SELECT id FROM api_keys WHERE id = ANY($1::text[])
           AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)`,
        [[...keyIds], now],
        PREPARED,
      );
      return new Set(rows.map((row) => row.id));
    },
  };
}
