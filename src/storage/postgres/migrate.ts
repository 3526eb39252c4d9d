import { randomBytes } from 'node:crypto';
import type { Sql } from 'postgres';
import { CURSOR_SECRET_SETTING } from '../settings-store.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';

/**
 * Brings the schema up to date. Idempotent and safe when several instances start at once: the
 * whole check-and-apply runs in one transaction under an advisory lock named after the schema,
 * so the second instance waits for the first and then finds nothing left to do (PostgreSQL's
 * DDL is transactional: a failed migration leaves nothing behind).
 */
export async function migratePostgres(sql: Sql, now: number): Promise<void> {
  await sql.begin(async (tx) => {
    await tx.unsafe(`SELECT pg_advisory_xact_lock(hashtextextended('meal-export:migrate:' || current_schema(), 0))`);
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer NOT NULL PRIMARY KEY,
      name       text    NOT NULL,
      applied_at bigint  NOT NULL
    )`);
    const rows = await tx.unsafe<{ version: number }[]>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => Number(row.version)));
    for (const migration of POSTGRES_MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      await tx.unsafe(migration.sql);
      await tx.unsafe('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        now,
      ]);
    }
    // The cursor-signing secret is made once per store and shared by every instance on it.
    await tx.unsafe('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      CURSOR_SECRET_SETTING,
      randomBytes(32),
    ]);
  });
}
