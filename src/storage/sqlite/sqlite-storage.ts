import { existsSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { AppError } from '../../errors.js';
import { AUTHORIZATION_CODE_TRAITS } from '../authorization-code-store.js';
import { type CallTraits, guardConcern, type Implementation } from '../guarded-concerns.js';
import { MEAL_FEED_TRAITS } from '../meal-feed.js';
import { MEAL_WRITES_TRAITS } from '../meal-writes.js';
import { QUOTA_STORE_TRAITS } from '../quota-store.js';
import { SERVICE_TOKEN_TRAITS } from '../service-token-store.js';
import { SIGN_IN_STORE_TRAITS } from '../sign-in-store.js';
import type { Storage, StorageOptions } from '../storage.js';
import { USER_ERASURE_TRAITS } from '../user-erasure.js';
import { WEBHOOK_STORE_TRAITS } from '../webhook-store.js';
import { migrateSqlite } from './migrate.js';
import { BUSY_TIMEOUT_MS, createSqliteCallPolicy, reported } from './sqlite-call-policy.js';
import { createSqliteApps } from './sqlite-apps.js';
import { createSqliteAuthorizationCodes } from './sqlite-authorization-codes.js';
import { createSqliteCommit } from './sqlite-commit.js';
import { createSqliteFeed } from './sqlite-feed.js';
import { createSqliteFeedSignals } from './sqlite-feed-signals.js';
import { createSqliteKeys } from './sqlite-keys.js';
import { createSqliteMealWrites } from './sqlite-meal-writes.js';
import { createSqliteQuota } from './sqlite-quota.js';
import { createSqliteServiceTokens } from './sqlite-service-tokens.js';
import { createSqliteSettings } from './sqlite-settings.js';
import { createSqliteSignIns } from './sqlite-sign-ins.js';
import { createSqliteUserErasure, SECURE_DELETE_ALWAYS } from './sqlite-user-erasure.js';
import { createSqliteWebhooks } from './sqlite-webhooks.js';
import { writerTurnOf } from './sqlite-writer-turn.js';

/**
 * Why the file may not be opened (StorageOptions.create), or undefined: no folder is ever
 * made, and with `never` no file either. better-sqlite3's fileMustExist closes the race of a
 * file removed after the look.
 */
function refusal(file: string, create: 'never' | 'file'): string | undefined {
  if (file === ':memory:') return undefined;
  const folder = path.dirname(path.resolve(file));
  if (!existsSync(folder)) return `no store there: the folder ${folder} does not exist (no command creates it)`;
  if (create === 'never' && !existsSync(file)) {
    return 'no store there: this command only uses an existing store (serve, seed, meals import or keys create makes one)';
  }
  return undefined;
}

function open(file: string, options: StorageOptions): Database {
  const create = options.create ?? 'file';
  const refused = refusal(file, create);
  if (refused !== undefined) throw new AppError('unavailable', `cannot open the database ${file}: ${refused}`);
  const db = new BetterSqlite3(file, { timeout: BUSY_TIMEOUT_MS, fileMustExist: create === 'never' });
  // WAL: readers (the server) never block the writer (an import) nor the other way round.
  db.pragma('journal_mode = WAL');
  // NORMAL is durable against a crash of the process in WAL mode; only an OS crash can lose
  // the last commits, never corrupt the file.
  db.pragma(options.bulkLoad === true ? 'synchronous = OFF' : 'synchronous = NORMAL');
  // Reads go through a memory map as large as SQLite allows (2 GiB): the OS page cache serves
  // them, shared and reclaimable, instead of SQLite's own cache in the heap, which is kept
  // small (8 MiB). Measured under 50 concurrent 5000-meal pages: peak RSS 300 -> 247 MB.
  db.pragma('cache_size = -8192');
  db.pragma('mmap_size = 2147418112');
  // What a write deletes or replaces is zeroed within its page (no extra I/O), so an erasure
  // leaves no earlier version of a meal in a page's free space (sqlite-user-erasure.ts).
  db.pragma(SECURE_DELETE_ALWAYS);
  return db;
}

/** Opens (creating the file if StorageOptions.create allows) a SQLite store at `file` and brings its schema up to date. */
export async function openSqliteStorage(file: string, options: StorageOptions = {}): Promise<Storage> {
  let db: Database;
  try {
    db = open(file, options);
    migrateSqlite(db, Date.now());
  } catch (error) {
    if (error instanceof AppError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new AppError('unavailable', `cannot open the database ${file}: ${reason}`, { cause: error });
  }
  const signals = createSqliteFeedSignals(db);
  const commit = createSqliteCommit(db, signals);
  const policy = createSqliteCallPolicy(db, commit, options, writerTurnOf(file));
  const guard = <T extends object>(implementation: Implementation<T>, traits: CallTraits<T> = {}) =>
    guardConcern<T>(implementation, traits, policy);
  const selectOne = db.prepare('SELECT 1');

  return {
    kind: 'sqlite',
    feed: guard(createSqliteFeed(db), MEAL_FEED_TRAITS),
    writes: guard(createSqliteMealWrites(db, commit), MEAL_WRITES_TRAITS),
    keys: guard(createSqliteKeys(db)),
    quota: guard(createSqliteQuota(db), QUOTA_STORE_TRAITS),
    signIns: guard(createSqliteSignIns(db), SIGN_IN_STORE_TRAITS),
    webhooks: guard(createSqliteWebhooks(db, commit), WEBHOOK_STORE_TRAITS),
    serviceTokens: guard(createSqliteServiceTokens(db), SERVICE_TOKEN_TRAITS),
    apps: guard(createSqliteApps(db)),
    codes: guard(createSqliteAuthorizationCodes(db), AUTHORIZATION_CODE_TRAITS),
    erasure: guard(createSqliteUserErasure(db, commit), USER_ERASURE_TRAITS),
    settings: guard(createSqliteSettings(db)),
    signals: { watchFeeds: (watcher) => signals.watch(watcher) },
    ping: () => policy.run(new Set(), () => selectOne.get()).then(() => undefined),
    // Closing is always allowed: an import's open transaction is rolled back with the connection.
    close: async () => {
      try {
        signals.close();
        db.close();
      } catch (error) {
        throw reported(error);
      }
    },
  };
}
