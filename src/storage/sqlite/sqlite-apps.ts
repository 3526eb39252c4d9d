import type { Database } from 'better-sqlite3';
import type { AppRecord, NewApp } from '../../domain/app-records.js';
import type { NewApiKey } from '../../domain/key-records.js';
import { APP_COLUMNS, type AppRow, appRecordOf } from '../app-rows.js';
import type { AppStore, IssueAppKeyResult } from '../app-store.js';
import type { Implementation } from '../guarded-concerns.js';
import { KEY_COLUMNS, type KeyRow, keyRecordOf } from '../key-rows.js';

const ACTIVE = 'revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)';

/** AppStore on SQLite: secrets as digests only. One writer, so each transaction is the whole of its check and write. */
export function createSqliteApps(db: Database): Implementation<AppStore> {
  const insert = db.prepare(
    'INSERT INTO apps (id, name, redirect_uris, homepage_url, secret_digest, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare<[string], AppRow>(`SELECT ${APP_COLUMNS} FROM apps WHERE id = ?`);
  const byDigest = db.prepare<[Buffer], AppRow>(`SELECT ${APP_COLUMNS} FROM apps WHERE secret_digest = ?`);
  const all = db.prepare<[], AppRow>(`SELECT ${APP_COLUMNS} FROM apps ORDER BY created_at, id`);
  const remove = db.prepare('DELETE FROM apps WHERE id = ?');
  const revokeAppKeys = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE app_id = ? AND revoked_at IS NULL');
  const rotate = db.prepare('UPDATE apps SET secret_digest = ?, secret_rotated_at = ? WHERE id = ?');
  const keyTaken = db.prepare<[string], number>('SELECT 1 FROM api_keys WHERE id = ?').pluck();
  // The user's active keys but this app's: the one this grant replaces does not count.
  const countOthers = db
    .prepare<[string, string, number], number>(
      `SELECT count(*) FROM api_keys WHERE user_id = ? AND (app_id IS NULL OR app_id <> ?) AND ${ACTIVE}`,
    )
    .pluck();
  const earlier = db
    .prepare<[string, string], string>(
      'SELECT id FROM api_keys WHERE user_id = ? AND app_id = ? AND revoked_at IS NULL ORDER BY created_at, id',
    )
    .pluck();
  const revokeEarlier = db.prepare(
    'UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND app_id = ? AND revoked_at IS NULL',
  );
  const insertKey = db.prepare(
    `INSERT INTO api_keys (id, user_id, name, prefix, digest, created_at, expires_at, app_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const keyById = db.prepare<[string], KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`);

  function read(id: string): AppRecord | undefined {
    const row = byId.get(id);
    return row === undefined ? undefined : appRecordOf(row);
  }

  const create = db.transaction((app: NewApp): AppRecord => {
    insert.run(app.id, app.name, JSON.stringify(app.redirectUris), app.homepageUrl, app.secretDigest, app.createdAt);
    const record = read(app.id);
    if (record === undefined) throw new Error('the app just inserted cannot be read back');
    return record;
  });

  const deleteApp = db.transaction((id: string, now: number) => {
    if (remove.run(id).changes === 0) return undefined;
    return { revokedKeys: revokeAppKeys.run(now, id).changes };
  });

  const issue = db.transaction((key: NewApiKey, appId: string, maxActive: number, now: number): IssueAppKeyResult => {
    if (byId.get(appId) === undefined) return { ok: false, reason: 'unknown_app' };
    if (keyTaken.get(key.id) !== undefined) return { ok: false, reason: 'duplicate_id' };
    if ((countOthers.get(key.userId, appId, now) ?? 0) >= maxActive) return { ok: false, reason: 'too_many_keys' };
    const replaced = earlier.all(key.userId, appId).at(-1) ?? null;
    revokeEarlier.run(now, key.userId, appId);
    insertKey.run(key.id, key.userId, key.name, key.prefix, key.digest, key.createdAt, key.expiresAt, appId);
    const row = keyById.get(key.id);
    if (row === undefined) throw new Error('the key just inserted cannot be read back');
    return { ok: true, key: keyRecordOf(row), replaced };
  });

  return {
    createApp: (app: NewApp) => create.immediate(app),
    listApps: () => all.all().map(appRecordOf),
    findApp: read,
    findAppBySecretDigest(digest: Buffer): AppRecord | undefined {
      const row = byDigest.get(digest);
      return row === undefined ? undefined : appRecordOf(row);
    },
    deleteApp: (id: string, now: number) => deleteApp.immediate(id, now),
    rotateAppSecret(id: string, digest: Buffer, now: number): AppRecord | undefined {
      rotate.run(digest, now, id);
      return read(id);
    },
    issueAppKey: (key: NewApiKey, appId: string, maxActive: number, now: number) =>
      issue.immediate(key, appId, maxActive, now),
  };
}
