import { randomBytes } from 'node:crypto';
import { redactedUrl } from '../../src/config.js';
import { connectPostgres } from '../../src/storage/postgres/postgres-connect.js';
import type { BenchContext } from './context.js';
import { scratchSqliteFile } from './datasets.js';

/** A store of a scenario's own, and how to remove it; or why it cannot be made here. */
export type ScratchStore = { readonly db: string; remove(): Promise<void> } | { readonly skipped: string };

/** An empty SQLite file under bench/.data/scratch (the first open migrates it), removed after. */
export async function scratchSqliteStore(name: string): Promise<ScratchStore> {
  const file = scratchSqliteFile(name);
  return { db: file.db, remove: async () => file.remove() };
}

/** An empty database of its own on the benchmark's PostgreSQL (the first open migrates it), dropped after. */
export async function scratchPostgresStore(context: BenchContext): Promise<ScratchStore> {
  const { pgUrl } = context.options;
  const admin = connectPostgres(pgUrl, { max: 1, connect_timeout: 3, onnotice: () => undefined });
  const database = `meal_export_bench_${randomBytes(5).toString('hex')}`;
  try {
    await admin.unsafe(`CREATE DATABASE ${database}`);
  } catch (error) {
    await admin.end({ timeout: 1 });
    const reason = error instanceof Error ? error.message : String(error);
    return {
      skipped: `no PostgreSQL answers at ${redactedUrl(pgUrl)} (${reason}): start one, or set MEAL_EXPORT_BENCH_PG_URL`,
    };
  }
  const url = new URL(pgUrl);
  url.pathname = `/${database}`;
  return {
    db: url.href,
    async remove() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end({ timeout: 1 });
    },
  };
}
