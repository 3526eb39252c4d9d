import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import postgres from 'postgres';
import { AppError } from '../../src/errors.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { NO_NUTRIENTS } from '../support/contract.js';
import { freePort } from '../support/free-port.js';
import { newPostgresSchema, postgresSkipReason, TEST_PG_URL } from '../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { openerAt, type StoreLocation } from '../support/store-fixtures.js';
import { runAppStoreSuite } from './app-store.suite.js';
import { runChangeSignalsSuite } from './change-signals.suite.js';
import { runCommitPathsSuite } from './commit-paths.suite.js';
import { runKeyStoreSuite } from './key-store.suite.js';
import { runMealFeedSuite } from './meal-feed.suite.js';
import { runMealChangesSuite } from './meal-changes.suite.js';
import { runMealImportsSuite } from './meal-imports.suite.js';
import { runMealUpsertsSuite } from './meal-upserts.suite.js';
import { runMealsDigestMirrorSuite } from './meals-digest-mirror.suite.js';
import { runMealsDigestSuite } from './meals-digest.suite.js';
import { runQuotaStoreSuite } from './quota-store.suite.js';
import { runServiceTokenStoreSuite } from './service-token-store.suite.js';
import { runSignInStoreSuite } from './sign-in-store.suite.js';
import { runSourceVersionDeletesSuite } from './source-version-deletes.suite.js';
import { runSourceVersionsSuite } from './source-versions.suite.js';
import { runStoreOpeningSuite, type StoreOpeningSuiteOptions } from './store-opening.suite.js';
import { runTombstonesSuite } from './tombstones.suite.js';
import { runWebhookClaimsSuite } from './webhook-claims.suite.js';
import { runAuthorizationCodesSuite } from './authorization-codes.suite.js';
import { runUserErasureSuite } from './user-erasure.suite.js';
import { runWebhookOutboxSuite } from './webhook-outbox.suite.js';

// On the machine's PostgreSQL (or MEAL_EXPORT_TEST_PG_URL), each case in a fresh schema of its
// own, dropped afterwards. Without PostgreSQL these tests are skipped with the reason (an
// error instead where MEAL_EXPORT_TEST_REQUIRE_SERVICES=1).
const skip = await postgresSkipReason();

async function newLocation(label: string): Promise<StoreLocation> {
  const store = await newPostgresSchema(label);
  return { location: store.url, remove: () => store.remove() };
}

// Every shared suite runs whole on PostgreSQL: no case is skipped.
const backend: StoreOpeningSuiteOptions = {
  name: 'PostgreSQL',
  unavailable: skip,
  open: openerAt(newLocation),
  newLocation,
  async appliedMigrations(url) {
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      const rows = await sql<{ version: number }[]>`SELECT version FROM schema_migrations ORDER BY version`;
      return rows.map((row) => Number(row.version));
    } finally {
      await sql.end();
    }
  },
};
runMealUpsertsSuite(backend);
runMealChangesSuite(backend);
runMealImportsSuite(backend);
runTombstonesSuite(backend);
runMealFeedSuite(backend);
runCommitPathsSuite(backend);
runSourceVersionsSuite(backend);
runSourceVersionDeletesSuite(backend);
runMealsDigestSuite(backend);
runMealsDigestMirrorSuite(backend);
runChangeSignalsSuite(backend);
runKeyStoreSuite(backend);
runQuotaStoreSuite(backend);
runSignInStoreSuite(backend);
runServiceTokenStoreSuite(backend);
runAppStoreSuite(backend);
runWebhookOutboxSuite(backend);
runUserErasureSuite(backend);
runAuthorizationCodesSuite(backend);
runWebhookClaimsSuite(backend);
runStoreOpeningSuite(backend);

describe('PostgreSQL storage: when the server cannot be reached', { skip: skip ?? false }, () => {
  const assertUnavailable = (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, 'unavailable');
    return true;
  };

  test('opening a store on a port where nothing listens fails at once as unavailable, without the password', async () => {
    const url = `postgres://meal:s3cret@127.0.0.1:${await freePort()}/none`;
    const started = Date.now();
    await assert.rejects(openStorage(url), (error: unknown) => {
      assertUnavailable(error);
      assert.ok(!(error as Error).message.includes('s3cret'), (error as Error).message);
      return true;
    });
    assert.ok(Date.now() - started < 5000);
  });

  describe('a store whose server goes away under it', () => {
    let proxy: TcpProxy;
    let remove: () => Promise<void>;
    let url: string;

    before(async () => {
      const store = await newPostgresSchema('cut');
      remove = () => store.remove();
      const target = new URL(TEST_PG_URL);
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      const through = new URL(store.url);
      through.hostname = proxy.host;
      through.port = String(proxy.port);
      url = through.href;
    });

    after(async () => {
      await proxy.close();
      await remove();
    });

    test('answers unavailable while cut, within the call deadline, and serves again once it is back', async () => {
      const storage = await openStorage(url);
      try {
        await storage.writes.upsertMeals('u1', [{ ...MEAL, id: 'before' }], Date.now());
        for (const mode of ['refuse', 'stall'] as const) {
          proxy.cut(mode);
          const started = Date.now();
          await Promise.all([
            assert.rejects(storage.ping(), assertUnavailable),
            assert.rejects(
              storage.feed.listFeed({
                userId: 'u1',
                start: { kind: 'from', modifiedAt: 0 },
                includeDeleted: false,
                limit: 10,
              }),
              assertUnavailable,
            ),
          ]);
          // The deadline is 5 s; the margin is for a loaded machine.
          assert.ok(Date.now() - started < 8_000, `${mode}: no call waits past its deadline`);
          proxy.restore();
          // The pool reconnects by itself: no reopening.
          let page;
          for (let attempt = 0; attempt < 50 && page === undefined; attempt += 1) {
            page = await storage.feed
              .listFeed({ userId: 'u1', start: { kind: 'from', modifiedAt: 0 }, includeDeleted: false, limit: 10 })
              .catch(() => undefined);
            if (page === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
          }
          assert.equal(page?.count, 1, `${mode}: served again after the cut`);
        }
      } finally {
        proxy.restore();
        await storage.close();
      }
    });
  });
});

const MEAL = {
  id: 'm',
  description: '',
  title: 'a meal',
  type: 'lunch',
  date: Date.UTC(2025, 5, 1),
  utcOffset: null,
  ...NO_NUTRIENTS,
} as const;
