import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { AppError } from '../../src/errors.js';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { makeTempDir } from '../support/project.js';
import { runFeedSignalsSuite } from './feed-signals.suite.js';
import { runKeyQuotaSuite } from './key-quota.suite.js';
import { runStorageSuite, type StorageBackend } from './storage.suite.js';
import { runWebhookStoreSuite } from './webhook-store.suite.js';

const backend: StorageBackend = {
  name: 'SQLite',
  skip: undefined,
  async newLocation(label) {
    const temp = makeTempDir(`sqlite-${label}`);
    // A folder that does not exist yet: opening creates it.
    return { location: path.join(temp.dir, 'nested', 'store.db'), remove: async () => temp.remove() };
  },
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
runStorageSuite(backend);
runFeedSignalsSuite(backend);
runKeyQuotaSuite(backend);
runWebhookStoreSuite(backend);

describe('SQLite storage: what only a file can get wrong', () => {
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
