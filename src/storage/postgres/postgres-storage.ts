import type { Sql } from 'postgres';
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
import { migratePostgres } from './migrate.js';
import { rewritePostgresBodies } from './postgres-body-rewrite.js';
import { backfillPostgresDigests } from './postgres-digest-backfill.js';
import { createPostgresApps } from './postgres-apps.js';
import { createPostgresAuthorizationCodes } from './postgres-authorization-codes.js';
import { POSTGRES_CALL_POLICY, reported } from './postgres-call-policy.js';
import { createPostgresChangePoll } from './postgres-change-poll.js';
import { connectPostgres } from './postgres-connect.js';
import { cannotOpen } from './postgres-errors.js';
import { createPostgresFeed } from './postgres-feed.js';
import { createPostgresFeedSignals } from './postgres-feed-signals.js';
import { createPostgresKeys } from './postgres-keys.js';
import { createPostgresMealWrites } from './postgres-meal-writes.js';
import { createPostgresQuota } from './postgres-quota.js';
import { createPostgresServiceTokens } from './postgres-service-tokens.js';
import { createPostgresSettings } from './postgres-settings.js';
import { createPostgresSignIns } from './postgres-sign-ins.js';
import { chooseSignalRoute } from './postgres-signal-route.js';
import { createPostgresUserErasure } from './postgres-user-erasure.js';
import { createPostgresWebhooks } from './postgres-webhooks.js';

const CONNECT_TIMEOUT_S = 3;

// int8 columns (epoch milliseconds) as numbers: they stay far below 2^53.
const INT8_AS_NUMBER = {
  to: 20,
  from: [20],
  serialize: (value: number) => String(value),
  parse: (value: string) => Number(value),
};

/** Runs a call at open, where only driver failures count (migrations may take long). */
async function atOpen<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw reported(error);
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
 * storage.ts), through PostgreSQL itself or a transaction pooler: how signals travel and
 * whether statements are named is the route's choice (postgres-signal-route.ts).
 */
export async function openPostgresStorage(url: string, options: StorageOptions = {}): Promise<Storage> {
  const route = await chooseSignalRoute(url, options, CONNECT_TIMEOUT_S);
  const sql: Sql = connectPostgres(url, {
    // false wins over every statement's own `prepare: true` (postgres.js connection.js).
    prepare: !route.unnamedStatements,
    connect_timeout: CONNECT_TIMEOUT_S,
    // Notices (CREATE … IF NOT EXISTS) must not reach stdout, which carries the listening line.
    onnotice: () => undefined,
    connection: { application_name: 'meal-export' },
    types: { int8: INT8_AS_NUMBER },
  });
  // A command that only uses an existing store finds meal-export's tables or creates none.
  let found = true;
  try {
    if (options.create === 'never') found = await atOpen(() => hasStore(sql));
    if (found) {
      await atOpen(() => migratePostgres(sql, Date.now()));
      await atOpen(() => backfillPostgresDigests(sql));
      await atOpen(() => rewritePostgresBodies(sql));
    }
  } catch (error) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    const reason =
      error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    throw cannotOpen(url, reason, error);
  }
  if (!found) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    throw cannotOpen(
      url,
      'no store there: this command only uses an existing store (serve, seed, meals import or keys create makes one)',
    );
  }
  const signals =
    route.listenUrl === undefined
      ? createPostgresChangePoll(sql)
      : createPostgresFeedSignals(route.listenUrl, CONNECT_TIMEOUT_S);
  route.announce();
  const guard = <T extends object>(implementation: Implementation<T>, traits: CallTraits<T> = {}) =>
    guardConcern<T>(implementation, traits, POSTGRES_CALL_POLICY);

  return {
    kind: 'postgres',
    feed: guard(createPostgresFeed(sql), MEAL_FEED_TRAITS),
    writes: guard(createPostgresMealWrites(sql), MEAL_WRITES_TRAITS),
    keys: guard(createPostgresKeys(sql)),
    quota: guard(createPostgresQuota(sql), QUOTA_STORE_TRAITS),
    signIns: guard(createPostgresSignIns(sql), SIGN_IN_STORE_TRAITS),
    webhooks: guard(createPostgresWebhooks(sql), WEBHOOK_STORE_TRAITS),
    serviceTokens: guard(createPostgresServiceTokens(sql), SERVICE_TOKEN_TRAITS),
    apps: guard(createPostgresApps(sql)),
    codes: guard(createPostgresAuthorizationCodes(sql), AUTHORIZATION_CODE_TRAITS),
    erasure: guard(createPostgresUserErasure(sql), USER_ERASURE_TRAITS),
    settings: guard(createPostgresSettings(sql)),
    signals: { watchFeeds: (watcher) => signals.watch(watcher) },
    ping: () => POSTGRES_CALL_POLICY.run(new Set(), () => sql.unsafe('SELECT 1')).then(() => undefined),
    close: async () => {
      await signals.close();
      await sql.end({ timeout: 5 });
    },
  };
}
