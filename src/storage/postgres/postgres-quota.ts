import type { Sql } from 'postgres';
import type { KeyDayRequests, KeyDayUse, KeyUses } from '../../domain/key-records.js';
import type { QuotaStore } from '../quota-store.js';

const PREPARED = { prepare: true } as const;

/** QuotaStore on PostgreSQL: each key's last use and accepted requests per day. */
export function createPostgresQuota(sql: Sql): QuotaStore {
  return {
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
