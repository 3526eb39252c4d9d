import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openStorage } from '../../src/storage/open-storage.js';
import { pgbouncerSkipReason, startPgBouncer, type TestPgBouncer } from '../support/pgbouncer.js';
import { newPostgresDatabase, postgresSkipReason } from '../support/postgres.js';
import { meal, openerAt, type StoreLocation, T0 } from '../support/store-fixtures.js';
import { runChangeSignalsSuite } from './change-signals.suite.js';

// A PostgreSQL store opened by a serving process through a transaction-pooling PgBouncer
// (docs/operations.md#behind-pgbouncer): its own notification does not come back, so it says
// so once and polls the change sequence; the change signals keep the shared suite's promise,
// and calls at once never meet a statement named on another server connection. A database
// per store: pgbouncer 1.18 passes no search_path.
const skip = (await postgresSkipReason()) ?? pgbouncerSkipReason();

let bouncer: TestPgBouncer | undefined;
before(async () => {
  if (skip === undefined) bouncer = await startPgBouncer({ poolSize: 2 });
});
after(async () => {
  await bouncer?.close();
});

async function pooledLocation(label: string): Promise<StoreLocation> {
  if (bouncer === undefined) throw new Error('no pgbouncer');
  const store = await newPostgresDatabase(label);
  return { location: bouncer.through(store.url), remove: () => store.remove() };
}

runChangeSignalsSuite({
  name: 'PostgreSQL through PgBouncer (change poll)',
  unavailable: skip,
  open: openerAt(pooledLocation, { serving: true }),
});

describe('PostgreSQL through PgBouncer: the check at open', { skip: skip ?? false }, () => {
  let location: StoreLocation;
  before(async () => {
    location = await pooledLocation('check');
  });
  after(async () => {
    await location?.remove();
  });

  test('a serving handle says once, as a warning, that signals do not arrive, and every call at once is answered', async () => {
    const said: { level: string; message: string }[] = [];
    const log = {
      info: (_fields: object, message: string) => said.push({ level: 'info', message }),
      warn: (_fields: object, message: string) => said.push({ level: 'warn', message }),
    };
    const storage = await openStorage(location.location, { serving: true, log });
    try {
      assert.deepEqual(
        said.map((line) => line.level),
        ['warn'],
      );
      assert.match(said[0]?.message ?? '', /do not arrive.*--direct-db/);
      const users = Array.from({ length: 6 }, (_, i) => `u${i}`);
      await Promise.all(users.map((user) => storage.writes.upsertMeals(user, [meal(`${user}-a`)], T0)));
      const pages = await Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          storage.feed.listFeed({
            userId: users[i % users.length] ?? 'u0',
            start: { kind: 'from', modifiedAt: 0 },
            includeDeleted: i % 2 === 0,
            limit: 10,
          }),
        ),
      );
      for (const page of pages) assert.equal(page.count, 1);
    } finally {
      await storage.close();
    }
  });

  test('single-meal saves and deletes, one statement each, at once from many users, are answered and counted once', async () => {
    const storage = await openStorage(location.location, { serving: true });
    try {
      const users = Array.from({ length: 12 }, (_, i) => `s${i}`);
      const saved = await Promise.all(users.map((user) => storage.writes.saveMeal(user, meal(`${user}-a`), T0)));
      assert.deepEqual(new Set(saved.map((result) => result.ok && result.outcome)), new Set(['created']));
      const again = await Promise.all(users.map((user) => storage.writes.saveMeal(user, meal(`${user}-a`), T0)));
      assert.deepEqual(new Set(again.map((result) => result.ok && result.outcome)), new Set(['unchanged']));
      const deleted = await Promise.all(users.map((user) => storage.writes.deleteMeal(user, `${user}-a`, T0)));
      assert.deepEqual(new Set(deleted), new Set(['deleted']));
      const page = await storage.feed.listFeed({
        userId: 's0',
        start: { kind: 'from', modifiedAt: 0 },
        includeDeleted: true,
        limit: 10,
      });
      assert.equal(page.count, 1);
      assert.equal(page.liveDigest?.count, 0);
    } finally {
      await storage.close();
    }
  });
});
