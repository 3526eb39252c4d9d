import type { Sql } from 'postgres';
import type { NewServiceToken, ServiceTokenRecord } from '../../domain/service-token-records.js';
import { SERVICE_TOKEN_COLUMNS, serviceTokenRecordOf, type ServiceTokenRow } from '../service-token-rows.js';
import type { ServiceTokenStore } from '../service-token-store.js';

const PREPARED = { prepare: true } as const;

/** ServiceTokenStore on PostgreSQL: digests only, never a plain token. */
export function createPostgresServiceTokens(sql: Sql): ServiceTokenStore {
  async function one(query: string, parameters: (string | number | Buffer)[]): Promise<ServiceTokenRecord | undefined> {
    const [row] = await sql.unsafe<ServiceTokenRow[]>(query, parameters, PREPARED);
    return row === undefined ? undefined : serviceTokenRecordOf(row);
  }

  return {
    async createServiceToken(token: NewServiceToken): Promise<ServiceTokenRecord> {
      const record = await one(
        `INSERT INTO service_tokens (id, name, prefix, digest, created_at)
         VALUES ($1, $2, $3, $4, $5) RETURNING ${SERVICE_TOKEN_COLUMNS}`,
        [token.id, token.name, token.prefix, token.digest, token.createdAt],
      );
      if (record === undefined) throw new Error('the service token just inserted was not returned');
      return record;
    },

    async listServiceTokens(): Promise<ServiceTokenRecord[]> {
      const rows = await sql.unsafe<ServiceTokenRow[]>(
        `SELECT ${SERVICE_TOKEN_COLUMNS} FROM service_tokens ORDER BY created_at, id`,
        [],
        PREPARED,
      );
      return rows.map(serviceTokenRecordOf);
    },

    /** The first revocation's time is kept: a second one changes nothing. */
    async revokeServiceToken(id: string, now: number): Promise<ServiceTokenRecord | undefined> {
      await sql.unsafe(
        'UPDATE service_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL',
        [id, now],
        PREPARED,
      );
      return one(`SELECT ${SERVICE_TOKEN_COLUMNS} FROM service_tokens WHERE id = $1`, [id]);
    },

    findServiceTokenByDigest(digest: Buffer): Promise<ServiceTokenRecord | undefined> {
      return one(`SELECT ${SERVICE_TOKEN_COLUMNS} FROM service_tokens WHERE digest = $1`, [digest]);
    },

    /** Uses are recorded out of order (many instances, a late background write): never backwards. */
    async touchServiceToken(id: string, at: number): Promise<void> {
      await sql.unsafe(
        'UPDATE service_tokens SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)',
        [id, at],
        PREPARED,
      );
    },
  };
}
