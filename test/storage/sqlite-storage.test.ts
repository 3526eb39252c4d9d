import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { AppError } from '../../src/errors.js';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { pruneInPieces } from '../../src/storage/tombstone-pieces.js';
import { makeTempDir } from '../support/project.js';
import { meal, openerAt, type StoreLocation, T0 } from '../support/store-fixtures.js';
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

async function newLocation(label: string): Promise<StoreLocation> {
  const temp = makeTempDir(`sqlite-${label}`);
  // A file that does not exist yet, in a folder that does: opening may create the file only.
  return { location: path.join(temp.dir, 'store.db'), remove: async () => temp.remove() };
}

// Every shared suite runs whole on SQLite: no case is skipped.
const backend: StoreOpeningSuiteOptions = {
  name: 'SQLite',
  open: openerAt(newLocation),
  newLocation,
  async appliedMigrations(file) {
    const db = new BetterSqlite3(file, { readonly: true });
    try {
      return db
        .prepare('SELECT version FROM schema_migrations ORDER BY version')
        .pluck()
        .all()
        .map((v) => Number(v));
    } finally {
      db.close();
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

describe('SQLite storage: what only a file can get wrong', () => {
  test('no folder is ever made for a store, whatever may be created', async () => {
    const temp = makeTempDir('sqlite-no-folder');
    try {
      const folder = path.join(temp.dir, 'missing', 'dir');
      for (const create of ['never', 'file', undefined] as const) {
        const options = create === undefined ? {} : { create };
        await assert.rejects(openSqliteStorage(path.join(folder, 'x.db'), options), (error: unknown) => {
          assert.ok(error instanceof AppError);
          assert.equal(error.code, 'unavailable');
          assert.match(error.message, /no store there: the folder .*missing.dir does not exist/);
          return true;
        });
        assert.equal(existsSync(path.join(temp.dir, 'missing')), false, `create: ${create}`);
      }
    } finally {
      temp.remove();
    }
  });

  test("a serving process's prune waits for another process's write lock, by awaiting, and then goes through", async () => {
    const temp = makeTempDir('sqlite-prune-lock');
    const file = path.join(temp.dir, 'store.db');
    const storage = await openSqliteStorage(file, { serving: true });
    const other = new BetterSqlite3(file);
    try {
      await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
      await storage.writes.deleteMeal('u1', 'a', T0);
      other.exec('BEGIN IMMEDIATE');
      let answered = false;
      const pruned = pruneInPieces(storage.writes, T0 + 100, { piece: 1 }).finally(() => (answered = true));
      await sleep(300);
      assert.equal(answered, false, 'no piece goes through, nor fails, while the lock is held');
      other.exec('ROLLBACK');
      assert.equal(await pruned, 1);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      await storage.close();
      temp.remove();
    }
  });

  test('a path that cannot hold a database is reported as unavailable storage', async () => {
    const temp = makeTempDir('sqlite-bad-path');
    try {
      const blocker = path.join(temp.dir, 'a-file');
      writeFileSync(blocker, 'not a folder');
      await assert.rejects(openSqliteStorage(path.join(blocker, 'store.db')), (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.code, 'unavailable');
        return true;
      });
      const notADatabase = path.join(temp.dir, 'junk.db');
      writeFileSync(notADatabase, 'this is not a SQLite file, just some text that is long enough to be read');
      await assert.rejects(openSqliteStorage(notADatabase), (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.code, 'unavailable');
        return true;
      });
    } finally {
      temp.remove();
    }
  });
});
