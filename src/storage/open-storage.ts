import path from 'node:path';
import { redactedUrl } from '../config.js';
import { openSqliteStorage } from './sqlite/sqlite-storage.js';
import type { Storage, StorageOptions } from './storage.js';

/** `postgres://…` or `postgresql://…`: the scale-out store; anything else is a SQLite file path. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * Opens the store a location names (`postgres://…` or a SQLite file path) and brings its
 * schema up to date (docs/cli.md: every command migrates on start).
 */
export async function openStorage(location: string, options: StorageOptions = {}): Promise<Storage> {
  // bulkLoad relaxes SQLite's fsync; PostgreSQL keeps its own durability settings. The
  // PostgreSQL store (and its driver) is loaded only when asked for: the embedded default and
  // every command on a SQLite file start without it.
  if (isPostgresUrl(location)) {
    const { openPostgresStorage } = await import('./postgres/postgres-storage.js');
    return openPostgresStorage(location, options);
  }
  return openSqliteStorage(location, options);
}

/** The store as a log or message may name it: a PostgreSQL URL without its password, a file's full path. */
export function describeStore(location: string): string {
  return isPostgresUrl(location) ? redactedUrl(location) : path.resolve(location);
}

/**
 * For the commands that only read or change what a store holds (`keys list`, `meals export`,
 * `users login-link`, …): a store that does not exist is refused, and none is made by mistake.
 */
export const EXISTING_STORE: StorageOptions = { create: 'never' };

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
