import type { ApiKeyRecord } from '../domain/key-records.js';

/** The api_keys columns every adapter reads, in one order (never the digest). */
export const KEY_COLUMNS = 'id, user_id, name, prefix, created_at, expires_at, last_used_at, revoked_at, app_id';

/** A row of those columns, as both SQLite and PostgreSQL (int8 parsed as numbers) return it. */
export interface KeyRow {
  readonly id: string;
  readonly user_id: string;
  readonly name: string;
  readonly prefix: string;
  readonly created_at: number;
  readonly expires_at: number | null;
  readonly last_used_at: number | null;
  readonly revoked_at: number | null;
  readonly app_id: string | null;
}

export function keyRecordOf(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    appId: row.app_id,
  };
}
