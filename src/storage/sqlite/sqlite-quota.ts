import type { Database } from 'better-sqlite3';
import type { KeyDayRequests, KeyDayUse, KeyUses } from '../../domain/key-records.js';
import type { QuotaStore } from '../quota-store.js';
import type { Implementation } from '../guarded-concerns.js';

/** QuotaStore on SQLite: each key's last use and accepted requests per day. */
export function createSqliteQuota(db: Database): Implementation<QuotaStore> {
  const touch = db.prepare(
    'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
  );
  // Counts are added, not set: every instance flushes its own share of a key's day. The last
  // acceptance keeps the latest (SQLite's two-argument max() is null if either is).
  const addRequests = db.prepare(
    `INSERT INTO key_daily_requests (key_id, day, requests, last_accepted_at)
     SELECT id, ?, ?, ? FROM api_keys WHERE id = ?
     ON CONFLICT (key_id, day) DO UPDATE SET
       requests = requests + excluded.requests,
       last_accepted_at = max(coalesce(last_accepted_at, excluded.last_accepted_at),
                              coalesce(excluded.last_accepted_at, last_accepted_at))`,
  );
  const requestsSince = db.prepare<
    [number],
    { key_id: string; day: number; requests: number; last_accepted_at: number | null }
  >('SELECT key_id, day, requests, last_accepted_at FROM key_daily_requests WHERE day >= ?');
  const requestsOfUser = db.prepare<[string, number, number], { key_id: string; day: number; requests: number }>(
    `SELECT r.key_id, r.day, r.requests FROM key_daily_requests r JOIN api_keys k ON k.id = r.key_id
     WHERE k.user_id = ? AND r.day BETWEEN ? AND ? ORDER BY r.key_id, r.day`,
  );
  const pruneRequests = db.prepare('DELETE FROM key_daily_requests WHERE day < ?');

  const recordUse = db.transaction((uses: KeyUses) => {
    for (const [id, at] of uses.lastUsed) touch.run(at, id, at);
    for (const { keyId, day, requests, lastAcceptedAt } of uses.requests) {
      addRequests.run(day, requests, lastAcceptedAt ?? null, keyId);
    }
  });

  return {
    recordKeyUse: (uses: KeyUses) => recordUse.immediate(uses),
    listKeyRequests: (userId: string, fromDay: number, toDay: number): KeyDayRequests[] =>
      requestsOfUser
        .all(userId, fromDay, toDay)
        .map((row) => ({ keyId: row.key_id, day: row.day, requests: row.requests })),
    listKeyRequestsSince: (fromDay: number): KeyDayUse[] =>
      requestsSince.all(fromDay).map((row) => ({
        keyId: row.key_id,
        day: row.day,
        requests: row.requests,
        lastAcceptedAt: row.last_accepted_at,
      })),
    pruneKeyRequests: (beforeDay: number): number => pruneRequests.run(beforeDay).changes,
  };
}
