import assert from 'node:assert/strict';
import path from 'node:path';
import { MEAL_BODY_VERSION_SETTING } from '../../src/storage/meal-body-rewrite.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { assertLiveDigest } from '../support/live-digest.js';
import { newPostgresSchema, postgresSkipReason } from '../support/postgres.js';
import { makeTempDir } from '../support/project.js';
import { postgresClockRows, sqliteClockRows, withPostgres, withSqlite } from '../support/raw-store.js';
import { runSharedSuite, type SharedSuiteOptions } from '../support/shared-suite.js';
import { DAY_MS, feedItems, meal, type StoreLocation, T0 } from '../support/store-fixtures.js';

/**
 * A store written before the Meal had `utcOffset` (docs/api.md#the-persons-day), upgraded in
 * place when it is opened: every live body gains `"utcOffset":null` after `date`, in batches,
 * and nothing else moves: no modifiedAt, no clock, no digest, no tombstone.
 */

/** One stored row as the test compares it: everything a consumer or a write could see. */
type StoredRow = readonly [userId: string, modifiedAt: number, id: string, deleted: boolean, body: string];

interface RewriteSuiteOptions extends SharedSuiteOptions {
  /** A new store, opened by the product once (so at the current schema), then removed after the case. */
  create(): Promise<StoreLocation>;
  /**
   * Makes the store's live bodies what the version before wrote: no utcOffset, and no body
   * version; only the bodies of users after `from` when given (a rewrite stopped halfway).
   */
  makeOld(location: string, from?: string): Promise<void>;
  /** Every meal row, in primary key order. */
  meals(location: string): Promise<StoredRow[]>;
  /** Every clock row, digest included, as text that changes whenever the row is written. */
  clocks(location: string): Promise<string[]>;
}

/** More meals than two batches (2 000 each) over 30 users, every fifth user with tombstones, wide ids. */
async function fill(storage: Storage): Promise<void> {
  for (let user = 0; user < 30; user += 1) {
    const userId = `user-${String(user).padStart(2, '0')}`;
    const meals = Array.from({ length: 150 }, (_, n) =>
      meal(`${userId}-m${n}`, { utcOffset: null, title: n % 7 === 0 ? ',"caloriesTotal":1 "utcOffset"' : `meal ${n}` }),
    );
    await storage.writes.upsertMeals(userId, meals, T0 + user);
    if (user % 5 === 0) {
      for (let n = 0; n < 10; n += 1) await storage.writes.deleteMeal(userId, `${userId}-m${n}`, T0 + DAY_MS);
    }
  }
  await storage.writes.upsertMeals(
    'wide',
    ['é', '🍕 pizza', '寿司'].map((id) => meal(id, { utcOffset: null })),
    T0,
  );
}

const OLD_FIELD = ',"utcOffset":null';

function runBodyRewriteSuite(options: RewriteSuiteOptions): void {
  runSharedSuite(options, 'storage: meal bodies from before utcOffset', ({ test }) => {
    test('opening an old store writes "utcOffset":null into every live body and moves no modifiedAt, clock or digest', async () => {
      const { location, remove } = await options.create();
      try {
        const written = await options.meals(location);
        await options.makeOld(location);
        const old = await options.meals(location);
        const clocks = await options.clocks(location);
        assert.equal(old.filter(([, , , deleted, body]) => !deleted && body.includes(OLD_FIELD)).length, 0);
        assert.ok(old.length > 4_000, `${old.length} rows`);

        const storage = await openStorage(location);
        try {
          assert.deepEqual(await options.meals(location), written, 'every body as the current version writes it');
          assert.deepEqual(await options.clocks(location), clocks, 'no clock or digest written');
          for (const userId of ['user-00', 'user-07', 'wide']) await assertLiveDigest(storage, userId);
          const items = await feedItems(storage, { userId: 'user-07', limit: 3 });
          assert.deepEqual(
            items.map((item) => item.utcOffset),
            [null, null, null],
          );
          // The same meal saved again is no change; a new offset alone is one.
          const same = await storage.writes.saveMeal(
            'user-07',
            meal('user-07-m3', { utcOffset: null, title: 'meal 3' }),
            T0 + 2 * DAY_MS,
          );
          assert.deepEqual(same.ok && same.outcome, 'unchanged');
          const moved = await storage.writes.saveMeal(
            'user-07',
            meal('user-07-m3', { utcOffset: '+09:00', title: 'meal 3' }),
            T0 + 2 * DAY_MS,
          );
          assert.deepEqual(moved.ok && moved.outcome, 'updated');
        } finally {
          await storage.close();
        }
      } finally {
        await remove();
      }
    });

    test('a rewrite stopped halfway is finished by the next open, and bodies already rewritten are not written twice', async () => {
      const { location, remove } = await options.create();
      try {
        const written = await options.meals(location);
        // The first batches done, the rest and the version not: a process killed mid-rewrite.
        await options.makeOld(location, 'user-14');
        await Promise.all([openStorage(location), openStorage(location)]).then((opened) =>
          Promise.all(opened.map((storage) => storage.close())),
        );
        assert.deepEqual(await options.meals(location), written, 'two opens at once rewrite each body once');
      } finally {
        await remove();
      }
    });
  });
}

// SQLite

runBodyRewriteSuite({
  name: 'SQLite',
  async create() {
    const temp = makeTempDir('sqlite-body-rewrite');
    const file = path.join(temp.dir, 'store.db');
    const storage = await openStorage(file);
    await fill(storage);
    await storage.close();
    return { location: file, remove: async () => temp.remove() };
  },
  async makeOld(file, from = '') {
    withSqlite(file, (db) => {
      db.prepare("UPDATE meals SET body = replace(body, ?, '') WHERE deleted = 0 AND user_id > ?").run(OLD_FIELD, from);
      db.prepare('DELETE FROM settings WHERE name = ?').run(MEAL_BODY_VERSION_SETTING);
    });
  },
  async meals(file) {
    return withSqlite(file, (db) =>
      db
        .prepare<[], { user_id: string; modified_at: number; id: string; deleted: number; body: string }>(
          'SELECT user_id, modified_at, id, deleted, body FROM meals ORDER BY user_id, modified_at, id',
        )
        .all()
        .map((row): StoredRow => [row.user_id, row.modified_at, row.id, row.deleted === 1, row.body]),
    );
  },
  clocks: async (file) => sqliteClockRows(file),
});

// PostgreSQL

runBodyRewriteSuite({
  name: 'PostgreSQL',
  unavailable: await postgresSkipReason(),
  async create() {
    const store = await newPostgresSchema('body_rewrite');
    const storage = await openStorage(store.url);
    await fill(storage);
    await storage.close();
    return { location: store.url, remove: () => store.remove() };
  },
  async makeOld(url, from = '') {
    await withPostgres(url, async (sql) => {
      await sql.unsafe("UPDATE meals SET body = replace(body, $1, '') WHERE NOT deleted AND user_id > $2", [
        OLD_FIELD,
        from,
      ]);
      await sql.unsafe('DELETE FROM settings WHERE name = $1', [MEAL_BODY_VERSION_SETTING]);
    });
  },
  async meals(url) {
    return withPostgres(url, async (sql) => {
      const rows = await sql.unsafe<
        { user_id: string; modified_at: string; id: string; deleted: boolean; body: string }[]
      >('SELECT user_id, modified_at::text, id, deleted, body FROM meals ORDER BY user_id, modified_at, id');
      return rows.map((row): StoredRow => [row.user_id, Number(row.modified_at), row.id, row.deleted, row.body]);
    });
  },
  clocks: postgresClockRows,
});
