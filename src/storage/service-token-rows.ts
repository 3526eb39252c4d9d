import type { ServiceTokenRecord } from '../domain/service-token-records.js';

/** The service_tokens columns every adapter reads, in one order (never the digest). */
export const SERVICE_TOKEN_COLUMNS = 'id, name, prefix, created_at, last_used_at, revoked_at';

/** A row of those columns, as both SQLite and PostgreSQL (int8 parsed as numbers) return it. */
export interface ServiceTokenRow {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly created_at: number;
  readonly last_used_at: number | null;
  readonly revoked_at: number | null;
}

export function serviceTokenRecordOf(row: ServiceTokenRow): ServiceTokenRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}
