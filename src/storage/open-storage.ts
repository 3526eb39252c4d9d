import { CliError } from '../errors.js';
import { openSqliteStorage } from './sqlite/sqlite-storage.js';
import type { Storage, StorageOptions } from './storage.js';

/**
 * Opens the store a location names (`postgres://…` or a SQLite file path) and brings its
 * schema up to date (CONTRACT.md section 7: every command migrates on start).
 */
export async function openStorage(location: string, options: StorageOptions = {}): Promise<Storage> {
  if (/^postgres(ql)?:\/\//i.test(location)) {
    throw new CliError('PostgreSQL storage is not available in this build yet: use a SQLite file path for --db');
  }
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
