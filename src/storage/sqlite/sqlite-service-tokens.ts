import type { Database } from 'better-sqlite3';
import type { NewServiceToken, ServiceTokenRecord } from '../../domain/service-token-records.js';
import type { Implementation } from '../guarded-concerns.js';
import { SERVICE_TOKEN_COLUMNS, serviceTokenRecordOf, type ServiceTokenRow } from '../service-token-rows.js';
import type { ServiceTokenStore } from '../service-token-store.js';

/** ServiceTokenStore on SQLite: digests only, never a plain token. */
export function createSqliteServiceTokens(db: Database): Implementation<ServiceTokenStore> {
  const insert = db.prepare('INSERT INTO service_tokens (id, name, prefix, digest, created_at) VALUES (?, ?, ?, ?, ?)');
  const byId = db.prepare<[string], ServiceTokenRow>(
    `SELECT ${SERVICE_TOKEN_COLUMNS} FROM service_tokens WHERE id = ?`,
  );
  const byDigest = db.prepare<[Buffer], ServiceTokenRow>(
    `SELECT ${SERVICE_TOKEN_COLUMNS} FROM service_tokens WHERE digest = ?`,
  );
  const all = db.prepare<[], ServiceTokenRow>(
    `SELECT ${SERVICE_TOKEN_COLUMNS} FROM service_tokens ORDER BY created_at, id`,
  );
  const revoke = db.prepare('UPDATE service_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  // Uses are recorded out of order (two processes, a late background write): never backwards.
  const touch = db.prepare(
    'UPDATE service_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
  );

  function read(id: string): ServiceTokenRecord | undefined {
    const row = byId.get(id);
    return row === undefined ? undefined : serviceTokenRecordOf(row);
  }

  const create = db.transaction((token: NewServiceToken): ServiceTokenRecord => {
    insert.run(token.id, token.name, token.prefix, token.digest, token.createdAt);
    const record = read(token.id);
    if (record === undefined) throw new Error('the service token just inserted cannot be read back');
    return record;
  });

  return {
    createServiceToken: (token: NewServiceToken) => create.immediate(token),
    listServiceTokens: () => all.all().map(serviceTokenRecordOf),
    revokeServiceToken(id: string, now: number): ServiceTokenRecord | undefined {
      revoke.run(now, id);
      return read(id);
    },
    findServiceTokenByDigest(digest: Buffer): ServiceTokenRecord | undefined {
      const row = byDigest.get(digest);
      return row === undefined ? undefined : serviceTokenRecordOf(row);
    },
    touchServiceToken(id: string, at: number): void {
      touch.run(at, id, at);
    },
  };
}
