import type { Database } from 'better-sqlite3';
import type { ApiKeyRecord, CreateKeyResult, KeyDayRequests, KeyDayUse, KeyUses, NewApiKey } from '../storage.js';
import { KEY_COLUMNS, type KeyRow, keyRecordOf } from '../key-rows.js';

/** The API-key half of the SQLite adapter: digests only, never a plain key. */
export function createSqliteKeys(db: Database) {
  const countActive = db
    .prepare<[string, number], number>(
      'SELECT count(*) FROM api_keys WHERE user_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)',
    )
    .pluck();
  const insert = db.prepare(
    'INSERT INTO api_keys (id, user_id, name, prefix, digest, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare<[string], KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`);
  const byDigest = db.prepare<[Buffer], KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE digest = ?`);
  const byUser = db.prepare<[string], KeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE user_id = ? ORDER BY created_at, id`,
  );
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const touch = db.prepare(
    'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
  );

  const create = db.transaction((key: NewApiKey, maxActive: number, now: number): CreateKeyResult => {
    if (byId.get(key.id) !== undefined) return { ok: false, reason: 'duplicate_id' };
    if ((countActive.get(key.userId, now) ?? 0) >= maxActive) return { ok: false, reason: 'too_many_keys' };
    insert.run(key.id, key.userId, key.name, key.prefix, key.digest, key.createdAt, key.expiresAt);
    const row = byId.get(key.id);
    if (row === undefined) throw new Error('the key just inserted cannot be read back');
    return { ok: true, key: keyRecordOf(row) };
  });

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
    createApiKey: (key: NewApiKey, maxActive: number, now: number) => create.immediate(key, maxActive, now),
    listApiKeys: (userId: string) => byUser.all(userId).map(keyRecordOf),
    revokeApiKey(keyId: string, now: number): ApiKeyRecord | undefined {
      revoke.run(now, keyId);
      const row = byId.get(keyId);
      return row === undefined ? undefined : keyRecordOf(row);
    },
    // A point read each: SQLite is in process, so a batch costs no round trip either way.
    findApiKeysByDigests: (digests: readonly Buffer[]): (ApiKeyRecord | undefined)[] =>
      digests.map((digest) => {
        const row = byDigest.get(digest);
        return row === undefined ? undefined : keyRecordOf(row);
      }),
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
