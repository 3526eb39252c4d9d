import { randomBytes } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { CURSOR_SECRET_SETTING } from '../settings-store.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import { bodiesPending, rewriteSqliteBodies } from './sqlite-body-rewrite.js';
import { backfillSqliteDigests, digestsPending } from './sqlite-digest-backfill.js';

/**
 * Whether the store has every migration and its cursor secret, read without a write lock: a
 * store that is up to date opens beside a process that holds the write lock for long (an
 * import reading a slow stdin), instead of waiting for it and failing with "locked".
 */
function isUpToDate(db: Database): boolean {
  const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all());
  if (!tables.has('schema_migrations') || !tables.has('settings')) return false;
  const applied = new Set(
    db
      .prepare('SELECT version FROM schema_migrations')
      .pluck()
      .all()
      .map((v) => Number(v)),
  );
  if (SQLITE_MIGRATIONS.some((migration) => !applied.has(migration.version))) return false;
  if (db.prepare('SELECT 1 FROM settings WHERE name = ?').get(CURSOR_SECRET_SETTING) === undefined) return false;
  return !digestsPending(db) && !bodiesPending(db);
}

/**
 * Brings the schema up to date. Idempotent and safe when several processes start at once:
 * the whole check-and-apply runs in one IMMEDIATE transaction, so the second process waits
 * for the first and then finds nothing left to do. A store already up to date takes no lock.
 */
export function migrateSqlite(db: Database, now: number): void {
  if (isUpToDate(db)) return;
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER NOT NULL PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
  const apply = db.transaction(() => {
    const applied = new Set(
      db
        .prepare('SELECT version FROM schema_migrations')
        .pluck()
        .all()
        .map((v) => Number(v)),
    );
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    for (const migration of SQLITE_MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, now);
    }
    // The cursor-signing secret is made once per store and shared by every instance on it.
    db.prepare('INSERT OR IGNORE INTO settings (name, value) VALUES (?, ?)').run(
      CURSOR_SECRET_SETTING,
      randomBytes(32),
    );
  });
  apply.immediate();
  // The digests of a store from before them, and the fields older bodies lack, in short
  // transactions after the schema's.
  backfillSqliteDigests(db);
  rewriteSqliteBodies(db);
}
