import postgres, { type Sql } from 'postgres';
import { redactedUrl } from '../../config.js';
import { AppError } from '../../errors.js';
import { storageUnavailable } from '../unavailable.js';
import { APP_PAGE_ORIGIN_SETTING, CURSOR_SECRET_SETTING } from '../sqlite/migrate.js';
import type { Storage, StorageOptions } from '../storage.js';
import { migratePostgres } from './migrate.js';
import { isDiskFull, isUnavailable } from './postgres-errors.js';
import { createPostgresKeys } from './postgres-keys.js';
import { createPostgresFeedSignals } from './postgres-feed-signals.js';
import { createPostgresMeals } from './postgres-meals.js';
import { createPostgresSignIns } from './postgres-sign-ins.js';
import { createPostgresWebhooks } from './postgres-webhooks.js';

/**
 * How long one storage call may take before the caller gets `503 unavailable`: a server that
 * stopped answering (a network cut, a hung host) must not hold requests until TCP gives up.
 */
const CALL_DEADLINE_MS = 5_000;
const CONNECT_TIMEOUT_S = 3;

// int8 columns (epoch milliseconds) as numbers: they stay far below 2^53.
const INT8_AS_NUMBER = {
  to: 20,
  from: [20],
  serialize: (value: number) => String(value),
  parse: (value: string) => Number(value),
};

function unavailable(error: unknown): AppError {
  return storageUnavailable(error, isDiskFull(error));
}

/**
 * Runs a driver call with a deadline, turning "cannot reach the store" failures (and a call
 * that outlives the deadline) into the contract's 503. Other errors are bugs and pass as they are.
 */
async function guard<T>(work: () => Promise<T>): Promise<T> {
  return guardWithin(CALL_DEADLINE_MS, work);
}

/**
 * For writes that may rightly take long (an import of 200 000 meals, an hourly prune): only
 * driver failures become 503. A deadline there would report a failure for a transaction that
 * still commits after it.
 */
async function guardLong<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isUnavailable(error) ? unavailable(error) : error;
  }
}

async function guardWithin<T>(deadlineMs: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(unavailable(new Error(`no answer within ${CALL_DEADLINE_MS} ms`))),
      CALL_DEADLINE_MS,
    );
  });
  try {
    return await Promise.race([work(), deadline]);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw isUnavailable(error) ? unavailable(error) : error;
  } finally {
    clearTimeout(timer);
  }
}

/** Whether meal-export's tables are in the connection's schema (its first migration has run). */
async function hasStore(sql: Sql): Promise<boolean> {
  const [row] = await sql.unsafe<{ found: boolean }[]>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS found`);
  return row?.found === true;
}

/**
 * Opens a PostgreSQL store (`postgres://user@host:port/db?search_path=…`) with a pool of
 * connections and brings its schema up to date. The same guarantees as SQLite (see
 * storage.ts); statements are prepared once per connection.
 */
export async function openPostgresStorage(url: string, options: StorageOptions = {}): Promise<Storage> {
  const sql: Sql = postgres(url, {
    connect_timeout: CONNECT_TIMEOUT_S,
    // Notices (CREATE … IF NOT EXISTS) must not reach stdout, which carries the listening line.
    onnotice: () => undefined,
    connection: { application_name: 'meal-export' },
    types: { int8: INT8_AS_NUMBER },
  });
  // A command that only uses an existing store finds meal-export's tables or creates none.
  let found = true;
  try {
    if (options.create === 'never') found = await guardLong(() => hasStore(sql));
    if (found) await guardLong(() => migratePostgres(sql, Date.now()));
  } catch (error) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    const reason =
      error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    throw new AppError('unavailable', `cannot open the database ${redactedUrl(url)}: ${reason}`, { cause: error });
  }
  if (!found) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    throw new AppError(
      'unavailable',
      `cannot open the database ${redactedUrl(url)}: no store there: this command only uses an existing store (serve, seed, meals import or keys create makes one)`,
    );
  }
  const meals = createPostgresMeals(sql);
  const keys = createPostgresKeys(sql);
  const signIns = createPostgresSignIns(sql);
  const webhooks = createPostgresWebhooks(sql);
  const signals = createPostgresFeedSignals(url, CONNECT_TIMEOUT_S);
  let secret: Buffer | undefined;

  return {
    kind: 'postgres',
    listFeed: (query) => guard(() => meals.listFeed(query)),
    exportMeals: (userId, since) => {
      const rows = meals.exportMeals(userId, since);
      return (async function* () {
        try {
          yield* rows;
        } catch (error) {
          throw isUnavailable(error) ? unavailable(error) : error;
        }
      })();
    },
    upsertMeals: (userId, list, now) => guardLong(() => meals.upsertMeals(userId, list, now)),
    importMeals: (userId, batches, now) => guardLong(() => meals.importMeals(userId, batches, now)),
    deleteMeal: (userId, mealId, now) => guard(() => meals.deleteMeal(userId, mealId, now)),
    watchFeeds: (watcher) => signals.watch(watcher),
    pruneTombstones: (before) => guardLong(() => meals.pruneTombstones(before)),
    createApiKey: (key, maxActive, now) => guard(() => keys.createApiKey(key, maxActive, now)),
    listApiKeys: (userId) => guard(() => keys.listApiKeys(userId)),
    revokeApiKey: (keyId, now) => guard(() => keys.revokeApiKey(keyId, now)),
    findApiKeysByDigests: (digests) => guard(() => keys.findApiKeysByDigests(digests)),
    recordKeyUse: (uses) => guard(() => keys.recordKeyUse(uses)),
    listKeyRequests: (userId, fromDay, toDay) => guard(() => keys.listKeyRequests(userId, fromDay, toDay)),
    listKeyRequestsSince: (fromDay) => guard(() => keys.listKeyRequestsSince(fromDay)),
    pruneKeyRequests: (beforeDay) => guard(() => keys.pruneKeyRequests(beforeDay)),
    createLoginToken: (token) => guard(() => signIns.createLoginToken(token)),
    consumeLoginToken: (digest, now) => guard(() => signIns.consumeLoginToken(digest, now)),
    createSession: (session) => guard(() => signIns.createSession(session)),
    findSession: (digest, now) => guard(() => signIns.findSession(digest, now)),
    deleteSession: (digest) => guard(() => signIns.deleteSession(digest)),
    pruneExpiredSignIns: (now) => guard(() => signIns.pruneExpiredSignIns(now)),
    createWebhook: (endpoint, maxPerUser) => guard(() => webhooks.createWebhook(endpoint, maxPerUser)),
    listWebhooks: (userId) => guard(() => webhooks.listWebhooks(userId)),
    findWebhook: (id) => guard(() => webhooks.findWebhook(id)),
    deleteWebhook: (id) => guard(() => webhooks.deleteWebhook(id)),
    enableWebhook: (id, now) => guard(() => webhooks.enableWebhook(id, now)),
    rotateWebhookSecret: (id, secret, previousExpiresAt) =>
      guard(() => webhooks.rotateWebhookSecret(id, secret, previousExpiresAt)),
    queueWebhookTest: (id, eventId, now) => guard(() => webhooks.queueWebhookTest(id, eventId, now)),
    listWebhookAttempts: (id) => guard(() => webhooks.listWebhookAttempts(id)),
    // With the deadline: a claim reported failed that commits after it leaves its events leased
    // until the lease runs out, as a sender's crash would; a hung server never holds the sender.
    claimDueWebhookEvents: (now, leaseMs, max) => guard(() => webhooks.claimDueWebhookEvents(now, leaseMs, max)),
    nextWebhookDueAt: () => guard(() => webhooks.nextWebhookDueAt()),
    recordWebhookAttempt: (event, attempt, fate) => guard(() => webhooks.recordWebhookAttempt(event, attempt, fate)),
    webhookBacklog: () => guard(() => webhooks.webhookBacklog()),
    cursorSecret: () =>
      guard(async () => {
        if (secret === undefined) {
          const [row] = await sql.unsafe<{ value: Buffer }[]>('SELECT value FROM settings WHERE name = $1', [
            CURSOR_SECRET_SETTING,
          ]);
          secret = row?.value;
        }
        if (secret === undefined) throw new Error('the store has no cursor secret');
        return secret;
      }),
    recordAppPageOrigin: (origin) =>
      guard(async () => {
        await sql.unsafe(
          'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
          [APP_PAGE_ORIGIN_SETTING, Buffer.from(origin, 'utf8')],
        );
      }),
    appPageOrigin: () =>
      guard(async () => {
        const [row] = await sql.unsafe<{ value: Buffer }[]>('SELECT value FROM settings WHERE name = $1', [
          APP_PAGE_ORIGIN_SETTING,
        ]);
        return row?.value.toString('utf8');
      }),
    ping: () => guard(() => sql.unsafe('SELECT 1').then(() => undefined)),
    close: async () => {
      await signals.close();
      await sql.end({ timeout: 5 });
    },
  };
}
