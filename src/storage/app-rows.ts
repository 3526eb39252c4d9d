import type { AppRecord } from '../domain/app-records.js';

/** The apps columns every adapter reads, in one order (never the secret's digest). */
export const APP_COLUMNS = 'id, name, redirect_uris, homepage_url, created_at, secret_rotated_at';

/** A row of those columns, as both SQLite and PostgreSQL (int8 parsed as numbers) return it. */
export interface AppRow {
  readonly id: string;
  readonly name: string;
  /** A JSON array of strings, kept as text on both backends. */
  readonly redirect_uris: string;
  readonly homepage_url: string | null;
  readonly created_at: number;
  readonly secret_rotated_at: number | null;
}

export function appRecordOf(row: AppRow): AppRecord {
  return {
    id: row.id,
    name: row.name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    homepageUrl: row.homepage_url,
    createdAt: row.created_at,
    secretRotatedAt: row.secret_rotated_at,
  };
}
