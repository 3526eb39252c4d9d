import type { Database } from 'better-sqlite3';
import type { ApiKeyRecord, NewApiKey } from '../../domain/key-records.js';
import type { CreateKeyResult, KeyStore } from '../key-store.js';
import type { Implementation } from '../guarded-concerns.js';
import { KEY_COLUMNS, type KeyRow, keyRecordOf } from '../key-rows.js';

/** KeyStore on SQLite: digests only, never a plain key. */
export function createSqliteKeys(db: Database): Implementation<KeyStore> {
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
  // The ids as one JSON array: any number of them in one statement, past SQLite's bound on parameters.
  const accepted = db
    .prepare<[string, number], string>(
      `SELECT id FROM api_keys WHERE id IN (SELECT value FROM json_each(?))
         AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`,
    )
    .pluck();
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');

  const create = db.transaction((key: NewApiKey, maxActive: number, now: number): CreateKeyResult => {
    if (byId.get(key.id) !== undefined) return { ok: false, reason: 'duplicate_id' };
    if ((countActive.get(key.userId, now) ?? 0) >= maxActive) return { ok: false, reason: 'too_many_keys' };
    insert.run(key.id, key.userId, key.name, key.prefix, key.digest, key.createdAt, key.expiresAt);
    const row = byId.get(key.id);
    if (row === undefined) throw new Error('the key just inserted cannot be read back');
    return { ok: true, key: keyRecordOf(row) };
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
    acceptedKeyIds: (keyIds: readonly string[], now: number): ReadonlySet<string> =>
      new Set(keyIds.length === 0 ? [] : accepted.all(JSON.stringify(keyIds), now)),
  };
}
