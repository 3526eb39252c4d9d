import type { Sql } from 'postgres';
import type { ApiKeyRecord, CreateKeyResult, KeyDayRequests, KeyDayUse, KeyUses, NewApiKey } from '../storage.js';
import { KEY_COLUMNS, type KeyRow, keyRecordOf } from '../key-rows.js';

const PREPARED = { prepare: true } as const;
/** The type oid of bytea[]: postgres.js sends the Buffers as one binary-safe array parameter. */
const BYTEA_ARRAY = 1001;

/** The API-key half of the PostgreSQL adapter: digests only, never a plain key. */
export function createPostgresKeys(sql: Sql) {
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

    /**
     * One flush in one transaction: last use never moves back; request counts are added (every
     * instance flushes its own share of a key's day), only for keys that exist.
     */
    async recordKeyUse(uses: KeyUses): Promise<void> {
      if (uses.lastUsed.size === 0 && uses.requests.length === 0) return;
      await sql.begin(async (tx) => {
        if (uses.lastUsed.size > 0) {
          await tx.unsafe(
            `UPDATE api_keys AS key SET last_used_at = used.at
             FROM unnest($1::text[], $2::bigint[]) AS used(id, at)
             WHERE key.id = used.id AND (key.last_used_at IS NULL OR key.last_used_at < used.at)`,
            [[...uses.lastUsed.keys()], [...uses.lastUsed.values()]],
            PREPARED,
          );
        }
        if (uses.requests.length > 0) {
          // GREATEST ignores nulls: the last acceptance keeps the latest known.
          await tx.unsafe(
            `INSERT INTO key_daily_requests (key_id, day, requests, last_accepted_at)
             SELECT counted.key_id, counted.day, counted.requests, counted.last_accepted_at
             FROM unnest($1::text[], $2::int[], $3::int[], $4::bigint[])
               AS counted(key_id, day, requests, last_accepted_at)
             JOIN api_keys AS key ON key.id = counted.key_id
             ON CONFLICT (key_id, day) DO UPDATE SET
               requests = key_daily_requests.requests + excluded.requests,
               last_accepted_at = GREATEST(key_daily_requests.last_accepted_at, excluded.last_accepted_at)`,
            [
              uses.requests.map((r) => r.keyId),
              uses.requests.map((r) => r.day),
              uses.requests.map((r) => r.requests),
              uses.requests.map((r) => r.lastAcceptedAt ?? null),
            ],
            PREPARED,
          );
        }
      });
    },

    async listKeyRequests(userId: string, fromDay: number, toDay: number): Promise<KeyDayRequests[]> {
      const rows = await sql.unsafe<{ key_id: string; day: number; requests: number }[]>(
        `SELECT r.key_id, r.day, r.requests FROM key_daily_requests AS r JOIN api_keys AS k ON k.id = r.key_id
         WHERE k.user_id = $1 AND r.day BETWEEN $2 AND $3 ORDER BY r.key_id, r.day`,
        [userId, fromDay, toDay],
        PREPARED,
      );
      return rows.map((row) => ({ keyId: row.key_id, day: Number(row.day), requests: Number(row.requests) }));
    },

    async listKeyRequestsSince(fromDay: number): Promise<KeyDayUse[]> {
      const rows = await sql.unsafe<
        { key_id: string; day: number; requests: number; last_accepted_at: number | null }[]
      >('SELECT key_id, day, requests, last_accepted_at FROM key_daily_requests WHERE day >= $1', [fromDay], PREPARED);
      return rows.map((row) => ({
        keyId: row.key_id,
        day: Number(row.day),
        requests: Number(row.requests),
        lastAcceptedAt: row.last_accepted_at,
      }));
    },

    async pruneKeyRequests(beforeDay: number): Promise<number> {
      const result = await sql.unsafe('DELETE FROM key_daily_requests WHERE day < $1', [beforeDay], PREPARED);
      return result.count;
    },
  };
}
