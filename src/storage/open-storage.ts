import { openPostgresStorage } from './postgres/postgres-storage.js';
import { openSqliteStorage } from './sqlite/sqlite-storage.js';
import type { Storage, StorageOptions } from './storage.js';

/** `postgres://…` or `postgresql://…`: the scale-out store; anything else is a SQLite file path. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * Opens the store a location names (`postgres://…` or a SQLite file path) and brings its
 * schema up to date (CONTRACT.md section 7: every command migrates on start).
 */
export async function openStorage(location: string, options: StorageOptions = {}): Promise<Storage> {
  // bulkLoad relaxes SQLite's fsync; PostgreSQL keeps its own durability settings.
  if (isPostgresUrl(location)) return openPostgresStorage(location);
  return openSqliteStorage(location, options);
}

/** Runs `work` with an open store and always closes it. */
export async function withStorage<T>(
  location: string,
  work: (storage: Storage) => Promise<T>,
  options: StorageOptions = {},
): Promise<T> {
  const storage = await openStorage(location, options);
  try {
    return await work(storage);
  } finally {
    await storage.close();
  }
}
