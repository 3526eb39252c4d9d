import { existsSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { AppError } from '../../errors.js';
import type { Storage, StorageOptions, UpsertResult } from '../storage.js';
import { storageUnavailable } from '../unavailable.js';
import { APP_PAGE_ORIGIN_SETTING, CURSOR_SECRET_SETTING, migrateSqlite } from './migrate.js';
import { createSqliteFeedSignals } from './sqlite-feed-signals.js';
import { createSqliteKeys } from './sqlite-keys.js';
import { createSqliteMeals } from './sqlite-meals.js';
import { createSqliteSignIns } from './sqlite-sign-ins.js';
import { createSqliteWebhooks } from './sqlite-webhooks.js';

/** A call on a handle whose connection is inside an import's transaction (sqlite-meals.ts). */
const busyWithImport = () => new Error('this store handle is busy with an import');

/** SQLite result codes that mean the store cannot be used right now, rather than a bug. */
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|READONLY|CORRUPT|NOTADB|PROTOCOL)/;

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** A driver failure as the caller should see it: "cannot reach the store" is the contract's 503. */
function reported(error: unknown): unknown {
  const code = codeOf(error);
  return UNAVAILABLE_CODES.test(code) ? storageUnavailable(error, code === 'SQLITE_FULL') : error;
}

/** Runs a driver call, turning "cannot reach the store" failures into the contract's 503. */
function guard<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(reported(error));
  }
}

/** How long a write waits for another connection's write lock (a command beside an import). */
const BUSY_TIMEOUT_MS = 5000;

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
  const meals = createSqliteMeals(db);
  const keys = createSqliteKeys(db);
  const signIns = createSqliteSignIns(db);
  const webhooks = createSqliteWebhooks(db);
  const signals = createSqliteFeedSignals(db);
  // This connection's outbox writes that no change of a feed signals: the sender hears of them.
  const outboxChangedIf = (changed: boolean) => {
    if (changed) signals.outboxChanged();
    return changed;
  };
  const selectOne = db.prepare('SELECT 1');
  const readSetting = db.prepare<[string], Buffer>('SELECT value FROM settings WHERE name = ?').pluck();
  const saveSetting = db.prepare<[string, Buffer]>(
    'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
  );
  let secret: Buffer | undefined;

  /**
   * Every call but importMeals: refused while an import holds the connection's transaction
   * across its awaits (sqlite-meals.ts), where it would silently become part of the import.
   */
  let importing = false;
  function call<T>(work: () => T): Promise<T> {
    if (db.inTransaction) return Promise.reject(busyWithImport());
    return guard(work);
  }

  /** A write of meals answered: one that changed anything wakes the user's watchers. */
  function signalled(userId: string, result: UpsertResult): UpsertResult {
    if (result.ok && result.created + result.updated > 0) signals.committed(userId);
    return result;
  }

  // StorageOptions.serving: a background write fails with SQLITE_BUSY (503 unavailable) at once
  // rather than blocking the event loop for up to BUSY_TIMEOUT_MS.
  function background<T>(work: () => T): Promise<T> {
    if (options.serving !== true) return call(work);
    db.pragma('busy_timeout = 0');
    try {
      return call(work);
    } finally {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  return {
    kind: 'sqlite',
    listFeed: (query) => call(() => meals.listFeed(query)),
    exportMeals: (userId, since) => {
      const rows = meals.exportMeals(userId, since);
      return (async function* () {
        yield* rows;
      })();
    },
    upsertMeals: (userId, list, now) => call(() => signalled(userId, meals.upsertMeals(userId, list, now))),
    importMeals: async (userId, batches, now) => {
      // Busy from the call on, not only once its transaction opens (after the first batch).
      if (importing || db.inTransaction) throw busyWithImport();
      importing = true;
      try {
        return signalled(userId, await meals.importMeals(userId, batches, now));
      } catch (error) {
        throw reported(error);
      } finally {
        importing = false;
      }
    },
    deleteMeal: (userId, mealId, now) =>
      call(() => {
        const result = meals.deleteMeal(userId, mealId, now);
        if (result === 'deleted') signals.committed(userId);
        return result;
      }),
    watchFeeds: (watcher) => signals.watch(watcher),
    pruneTombstones: (before) => background(() => meals.pruneTombstones(before)),
    createApiKey: (key, maxActive, now) => call(() => keys.createApiKey(key, maxActive, now)),
    listApiKeys: (userId) => call(() => keys.listApiKeys(userId)),
    revokeApiKey: (keyId, now) => call(() => keys.revokeApiKey(keyId, now)),
    findApiKeysByDigests: (digests) => call(() => keys.findApiKeysByDigests(digests)),
    recordKeyUse: (uses) => background(() => keys.recordKeyUse(uses)),
    listKeyRequests: (userId, fromDay, toDay) => call(() => keys.listKeyRequests(userId, fromDay, toDay)),
    listKeyRequestsSince: (fromDay) => call(() => keys.listKeyRequestsSince(fromDay)),
    pruneKeyRequests: (beforeDay) => background(() => keys.pruneKeyRequests(beforeDay)),
    createLoginToken: (token) => call(() => signIns.createLoginToken(token)),
    consumeLoginToken: (digest, now) => call(() => signIns.consumeLoginToken(digest, now)),
    createSession: (session) => call(() => signIns.createSession(session)),
    findSession: (digest, now) => call(() => signIns.findSession(digest, now)),
    deleteSession: (digest) => call(() => signIns.deleteSession(digest)),
    pruneExpiredSignIns: (now) => background(() => signIns.pruneExpiredSignIns(now)),
    createWebhook: (endpoint, maxPerUser) => call(() => webhooks.createWebhook(endpoint, maxPerUser)),
    listWebhooks: (userId) => call(() => webhooks.listWebhooks(userId)),
    findWebhook: (id) => call(() => webhooks.findWebhook(id)),
    deleteWebhook: (id) => call(() => webhooks.deleteWebhook(id)),
    enableWebhook: (id, now) => call(() => outboxChangedIf(webhooks.enableWebhook(id, now))),
    rotateWebhookSecret: (id, secret, previousExpiresAt) =>
      call(() => webhooks.rotateWebhookSecret(id, secret, previousExpiresAt)),
    queueWebhookTest: (id, eventId, now) => call(() => outboxChangedIf(webhooks.queueWebhookTest(id, eventId, now))),
    listWebhookAttempts: (id) => call(() => webhooks.listWebhookAttempts(id)),
    // The sender's writes can wait for their next turn: in a serving process they never block
    // the event loop behind an import (StorageOptions.serving).
    claimDueWebhookEvents: (now, leaseMs, max) => background(() => webhooks.claimDueWebhookEvents(now, leaseMs, max)),
    nextWebhookDueAt: () => call(() => webhooks.nextWebhookDueAt()),
    recordWebhookAttempt: (event, attempt, fate) =>
      background(() => webhooks.recordWebhookAttempt(event, attempt, fate)),
    webhookBacklog: () => call(() => webhooks.webhookBacklog()),
    cursorSecret: () =>
      call(() => {
        secret ??= readSetting.get(CURSOR_SECRET_SETTING);
        if (secret === undefined) throw new Error('the store has no cursor secret');
        return secret;
      }),
    recordAppPageOrigin: (origin) =>
      call(() => {
        saveSetting.run(APP_PAGE_ORIGIN_SETTING, Buffer.from(origin, 'utf8'));
      }),
    appPageOrigin: () => call(() => readSetting.get(APP_PAGE_ORIGIN_SETTING)?.toString('utf8')),
    ping: () => call(() => selectOne.get()).then(() => undefined),
    // Closing is always allowed: an import's open transaction is rolled back with the connection.
    close: () =>
      guard(() => {
        signals.close();
        db.close();
      }),
  };
}
