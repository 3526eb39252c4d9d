import type { Database } from 'better-sqlite3';
import type { CallPolicy, CallTrait } from '../guarded-concerns.js';
import type { StorageOptions } from '../storage.js';
import { storageUnavailable } from '../unavailable.js';
import type { SqliteCommit } from './sqlite-commit.js';

/** How long a write waits for another connection's write lock (a command beside an import). */
export const BUSY_TIMEOUT_MS = 5000;

/** SQLite result codes that mean the store cannot be used right now, rather than a bug. */
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|READONLY|CORRUPT|NOTADB|PROTOCOL)/;

/** A call on a handle whose connection is inside an import's transaction (sqlite-meal-writes.ts). */
const busyWithImport = () => new Error('this store handle is busy with an import');

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** A driver failure as the caller should see it: "cannot reach the store" is a 503. */
export function reported(error: unknown): unknown {
  const code = codeOf(error);
  return UNAVAILABLE_CODES.test(code) ? storageUnavailable(error, code === 'SQLITE_FULL') : error;
}

/**
 * Every call of a SQLite handle: driver failures mapped, the commit's signals sent once the
 * call's transaction is over, and no call let into an import's open transaction.
 */
export function createSqliteCallPolicy(db: Database, commit: SqliteCommit, options: StorageOptions): CallPolicy {
  let importing = false;

  function settle(work: () => unknown): Promise<unknown> {
    try {
      const result = work();
      commit.committed();
      return Promise.resolve(result);
    } catch (error) {
      commit.rolledBack();
      return Promise.reject(reported(error));
    }
  }

  /** An import holds the connection's transaction across awaits: busy from the call on, for every other call. */
  async function exclusive(work: () => unknown): Promise<unknown> {
    if (importing || db.inTransaction) throw busyWithImport();
    importing = true;
    try {
      const result = await work();
      commit.committed();
      return result;
    } catch (error) {
      commit.rolledBack();
      throw reported(error);
    } finally {
      importing = false;
    }
  }

  // In a serving process a background write fails with SQLITE_BUSY (503) at once rather than
  // blocking the event loop for up to BUSY_TIMEOUT_MS.
  function background(work: () => unknown): Promise<unknown> {
    db.pragma('busy_timeout = 0');
    try {
      return settle(work);
    } finally {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  return {
    run(traits: ReadonlySet<CallTrait>, work: () => unknown): Promise<unknown> {
      if (traits.has('exclusive')) return exclusive(work);
      if (db.inTransaction) return Promise.reject(busyWithImport());
      if (traits.has('background') && options.serving === true) return background(work);
      return settle(work);
    },
    streamError: reported,
  };
}
