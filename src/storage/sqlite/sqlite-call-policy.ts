import type { Database } from 'better-sqlite3';
import type { CallPolicy, CallTrait } from '../guarded-concerns.js';
import type { StorageOptions } from '../storage.js';
import { storageUnavailable } from '../unavailable.js';
import type { SqliteCommit } from './sqlite-commit.js';
import type { WriterTurn } from './sqlite-writer-turn.js';

/** How long a write waits for another connection's write lock (a command beside an import). */
export const BUSY_TIMEOUT_MS = 5000;

/** SQLite result codes that mean the store cannot be used right now, rather than a bug. */
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|READONLY|CORRUPT|NOTADB|PROTOCOL)/;

/** A call on a handle whose connection is inside an import's transaction (sqlite-meal-writes.ts). */
const busyWithImport = () => new Error('this store handle is busy with an import');

/** The first pause of a call that met another connection's write lock; each next one doubles, up to the longest. */
const FIRST_BUSY_PAUSE_MS = 5;
const LONGEST_BUSY_PAUSE_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SQLITE_BUSY and its extended codes (BUSY_SNAPSHOT: a read turned write after another's commit). */
const isBusy = (error: unknown) => codeOf(error).startsWith('SQLITE_BUSY');

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** A driver failure as the caller should see it: "cannot reach the store" is a 503. */
export function reported(error: unknown): unknown {
  const code = codeOf(error);
  if (!UNAVAILABLE_CODES.test(code)) return error;
  return storageUnavailable(error, code === 'SQLITE_FULL' ? 'disk_full' : isBusy(error) ? 'busy' : 'unreachable');
}

/**
 * Every call of a SQLite handle: driver failures mapped, the commit's signals sent once the
 * call's transaction is over, and no call let into an import's open transaction.
 */
export function createSqliteCallPolicy(
  db: Database,
  commit: SqliteCommit,
  options: StorageOptions,
  turn: WriterTurn,
): CallPolicy {
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

  /**
   * An import holds the connection's transaction across awaits: busy from the call on, for every
   * other call of this handle; it waits for the process's other imports on the file first.
   */
  function exclusive(work: () => unknown): Promise<unknown> {
    return turn.take(() => runImport(work));
  }

  async function runImport(work: () => unknown): Promise<unknown> {
    // One import at a time comes here (the turn); a transaction still open is another's.
    if (db.inTransaction) throw busyWithImport();
    // An import cannot be tried again (its records stream in once): on a serving handle it
    // waits for another connection's lock as a command does, once, as it starts.
    if (options.serving === true) db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    try {
      const result = await work();
      commit.committed();
      return result;
    } catch (error) {
      commit.rolledBack();
      throw reported(error);
    } finally {
      if (options.serving === true) db.pragma('busy_timeout = 0');
    }
  }

  /**
   * A serving process's call that met another connection's write lock, tried again after a
   * pause until BUSY_TIMEOUT_MS have passed since it was first refused: it waits by awaiting, so
   * the requests beside it go on. Safe to repeat: a write that meets the lock has written
   * nothing (each write is one statement, or a transaction that rolled back).
   */
  async function untilUnlocked(work: () => unknown, refusedAt: number): Promise<unknown> {
    const deadline = refusedAt + BUSY_TIMEOUT_MS;
    for (let pause = FIRST_BUSY_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_BUSY_PAUSE_MS)) {
      await sleep(Math.max(0, Math.min(pause, deadline - performance.now())));
      try {
        const result = work();
        commit.committed();
        return result;
      } catch (error) {
        commit.rolledBack();
        if (!isBusy(error) || db.inTransaction || performance.now() >= deadline) throw reported(error);
      }
    }
  }

  /**
   * A call of a serving process, whose handle never waits in SQLite's busy loop (it would block
   * the event loop): a `background` one that meets a write lock fails at once (503; it is tried
   * again at the caller's next turn), any other waits for the lock by awaiting (untilUnlocked).
   */
  function serve(traits: ReadonlySet<CallTrait>, work: () => unknown): Promise<unknown> {
    try {
      const result = work();
      commit.committed();
      return Promise.resolve(result);
    } catch (error) {
      commit.rolledBack();
      if (traits.has('background') || !isBusy(error) || db.inTransaction) return Promise.reject(reported(error));
      // This process's own import holds the lock: its end is awaited, however long it takes
      // (sqlite-writer-turn.ts), then the call is tried as any other that met a lock.
      const importEnds = turn.held();
      if (importEnds !== undefined) return importEnds.then(() => serve(traits, work));
      // Timed from the refusal, not read before every call: without a busy timeout a call that
      // meets the lock is refused at once, and a read on the hot path pays for no clock.
      return untilUnlocked(work, performance.now());
    }
  }

  if (options.serving === true) db.pragma('busy_timeout = 0');

  return {
    run(traits: ReadonlySet<CallTrait>, work: () => unknown): Promise<unknown> {
      if (traits.has('exclusive')) return exclusive(work);
      if (db.inTransaction) return Promise.reject(busyWithImport());
      return options.serving === true ? serve(traits, work) : settle(work);
    },
    streamError: reported,
  };
}
