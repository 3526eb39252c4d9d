import assert from 'node:assert/strict';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { encodeMeal, encodeTombstone } from '../../src/domain/meal-json.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { POSTGRES_MIGRATIONS } from '../../src/storage/postgres/migrations.js';
import { SQLITE_MIGRATIONS } from '../../src/storage/sqlite/migrations.js';
import type { Storage } from '../../src/storage/storage.js';
import { assertLiveDigest, expectedDigest, shown } from '../support/live-digest.js';
import { newPostgresSchema, postgresSkipReason } from '../support/postgres.js';
import { makeTempDir } from '../support/project.js';
import { postgresClockRows, sqliteClockRows, withPostgres, withSqlite } from '../support/raw-store.js';
import { runSharedSuite, type SharedSuiteOptions } from '../support/shared-suite.js';
import { at, DAY_MS, feed, meal, type StoreLocation, T0 } from '../support/store-fixtures.js';

/** A meal row as a store from before the digest holds it. */
interface LegacyMeal {
  readonly userId: string;
  readonly id: string;
  readonly modifiedAt: number;
  readonly deleted: boolean;
}

/** A user clock row as it was then; null: a PostgreSQL row locked by a write that changed nothing. */
interface LegacyClock {
  readonly userId: string;
  readonly lastModifiedAt: number | null;
}

interface LegacyRows {
  readonly meals: readonly LegacyMeal[];
  readonly clocks: readonly LegacyClock[];
}

/** What each backend does by hand, beside the product's code, to make and inspect a store. */
interface BackfillSuiteOptions extends SharedSuiteOptions {
  /** A fresh store at the last schema before the digest, holding these rows. */
  createLegacy(rows: LegacyRows): Promise<StoreLocation>;
  /** Every clock row, digest included, in a form that changes whenever a row is written again. */
  clockRows(location: string): Promise<string[]>;
  /** Opens the store again, where it can tell a write from a read. */
  reopen(location: string): Promise<Storage>;
  /** Sets these users' digests back to null: a backfill stopped halfway. */
  forget(location: string, users: readonly string[]): Promise<void>;
}

/** More users than a backfill batch (100), some without live meals, some with tombstones, some wide ids. */
function legacyRows(): LegacyRows {
  const meals: LegacyMeal[] = [];
  const clocks: LegacyClock[] = [];
  for (let user = 0; user < 230; user += 1) {
    const userId = `user-${String(user).padStart(3, '0')}`;
    const count = user % 6;
    for (let n = 0; n < count; n += 1) {
      meals.push({
        userId,
        id: `m${user}-${n}`,
        modifiedAt: T0 + n * 1_000 + user,
        deleted: user % 4 === 0 && n % 2 === 0,
      });
    }
    // A user whose meals were all pruned keeps the clock they moved.
    clocks.push({ userId, lastModifiedAt: count === 0 ? T0 - DAY_MS : T0 + (count - 1) * 1_000 + user });
  }
  ['é', '🍕 pizza', '寿司', 'ラーメン'].forEach((id, n) =>
    meals.push({ userId: 'wide', id, modifiedAt: T0 + n, deleted: false }),
  );
  clocks.push({ userId: 'wide', lastModifiedAt: T0 + 3 });
  clocks.push({ userId: 'idle', lastModifiedAt: null });
  return { meals, clocks };
}

const users = (rows: LegacyRows) => rows.clocks.map((clock) => clock.userId);

/** Each user's digest computed here from the rows written, not from the store. */
function digestOfRows(rows: LegacyRows, userId: string) {
  const live = rows.meals.filter((row) => row.userId === userId && !row.deleted);
  return expectedDigest(live.map((row) => ({ id: row.id, modifiedAt: at(row.modifiedAt) })));
}

const bodyOf = (row: LegacyMeal) =>
  row.deleted ? encodeTombstone(row.id, row.modifiedAt) : encodeMeal(meal(row.id), row.modifiedAt);

async function assertEveryDigest(storage: Storage, rows: LegacyRows): Promise<void> {
  for (const userId of users(rows)) {
    const page = await feed(storage, { userId, limit: 2 });
    assert.equal(shown(page.liveDigest), shown(digestOfRows(rows, userId)), `the digest of ${userId}`);
  }
  // A few users on pages of every kind too, against what the feed lists.
  for (const userId of ['user-000', 'user-005', 'user-101', 'user-229', 'wide', 'idle']) {
    await assertLiveDigest(storage, userId);
  }
}

/**
 * The digest's migration (SQLite 7, PostgreSQL 5): a store written before it gets every user's
 * digest at its first open, computed from the live meals in resumable batches, and an open
 * after that writes nothing more.
 */
function runDigestBackfillSuite(options: BackfillSuiteOptions): void {
  runSharedSuite(options, 'storage: the digest of a store from before it', ({ test }) => {
    test("opening a store from before the digest fills every user's digest from the live meals, and a second open writes nothing", async () => {
      const rows = legacyRows();
      const { location, remove } = await options.createLegacy(rows);
      try {
        const storage = await openStorage(location);
        try {
          await assertEveryDigest(storage, rows);
        } finally {
          await storage.close();
        }
        const before = await options.clockRows(location);
        const again = await options.reopen(location);
        try {
          await assertEveryDigest(again, rows);
        } finally {
          await again.close();
        }
        assert.deepEqual(await options.clockRows(location), before, 'no clock row written again');
      } finally {
        await remove();
      }
    });

    test('a backfill stopped halfway is finished by the next open, and writes after it move the digest from there', async () => {
      const rows = legacyRows();
      const { location, remove } = await options.createLegacy(rows);
      try {
        await (await openStorage(location)).close();
        await options.forget(location, users(rows).slice(40, 190));
        const storage = await openStorage(location);
        try {
          await assertEveryDigest(storage, rows);
          await storage.writes.deleteMeal('user-005', 'm5-1', T0 + DAY_MS);
          await storage.writes.upsertMeals('user-005', [meal('m5-2', { title: 'changed' }), meal('new')], T0 + DAY_MS);
          await storage.writes.upsertMeals('idle', [meal('first')], T0 + DAY_MS);
          await storage.writes.deleteMeal('wide', '寿司', T0 + DAY_MS);
          for (const userId of ['user-005', 'idle', 'wide']) await assertLiveDigest(storage, userId);
        } finally {
          await storage.close();
        }
      } finally {
        await remove();
      }
    });
  });
}

// SQLite: a file made with the migrations before 7, applied as migrate.ts applies them.
const SQLITE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`;

runDigestBackfillSuite({
  name: 'SQLite',
  async createLegacy(rows) {
    const temp = makeTempDir('sqlite-digest-backfill');
    const file = path.join(temp.dir, 'store.db');
    withSqlite(file, (db) => {
      db.exec(SQLITE_MIGRATIONS_TABLE);
      const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
      db.transaction(() => {
        for (const migration of SQLITE_MIGRATIONS.filter((m) => m.version < 7)) {
          db.exec(migration.sql);
          record.run(migration.version, migration.name, T0);
        }
        const meal = db.prepare('INSERT INTO meals (user_id, modified_at, id, deleted, body) VALUES (?, ?, ?, ?, ?)');
        const clock = db.prepare('INSERT INTO user_clocks (user_id, last_modified_at, change_seq) VALUES (?, ?, ?)');
        for (const row of rows.meals) meal.run(row.userId, row.modifiedAt, row.id, row.deleted ? 1 : 0, bodyOf(row));
        // SQLite writes a clock row only with a change: it never had one without a clock.
        rows.clocks.forEach((row, n) => {
          if (row.lastModifiedAt !== null) clock.run(row.userId, row.lastModifiedAt, n + 1);
        });
      })();
    });
    return { location: file, remove: async () => temp.remove() };
  },
  clockRows: async (file) => sqliteClockRows(file),
  // Another connection holds the write lock meanwhile: an open that wrote would wait for it and fail.
  async reopen(file) {
    const holder = new BetterSqlite3(file);
    try {
      holder.pragma('busy_timeout = 0');
      holder.exec('BEGIN IMMEDIATE');
      return await openStorage(file);
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      holder.close();
    }
  },
  async forget(file, forgotten) {
    withSqlite(file, (db) => {
      const forget = db.prepare('UPDATE user_clocks SET live_count = NULL, digest_sum = NULL WHERE user_id = ?');
      db.transaction(() => forgotten.forEach((userId) => forget.run(userId)))();
    });
  },
});

// PostgreSQL: a schema of its own made with the migrations before 5.
const unavailable = await postgresSkipReason();

runDigestBackfillSuite({
  name: 'PostgreSQL',
  unavailable,
  async createLegacy(rows) {
    const store = await newPostgresSchema('digest_backfill');
    await withPostgres(store.url, (sql) =>
      sql.begin(async (tx) => {
        await tx.unsafe(`CREATE TABLE schema_migrations (
          version integer NOT NULL PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`);
        for (const migration of POSTGRES_MIGRATIONS.filter((m) => m.version < 5)) {
          await tx.unsafe(migration.sql);
          await tx.unsafe('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
            migration.version,
            migration.name,
            T0,
          ]);
        }
        await tx.unsafe(
          `INSERT INTO meals (user_id, modified_at, id, deleted, body)
           SELECT user_id, modified_at, id, deleted = 't', body
           FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[]) AS t(user_id, modified_at, id, deleted, body)`,
          [
            rows.meals.map((row) => row.userId),
            rows.meals.map((row) => row.modifiedAt),
            rows.meals.map((row) => row.id),
            rows.meals.map((row) => (row.deleted ? 't' : 'f')),
            rows.meals.map(bodyOf),
          ],
        );
        await tx.unsafe(
          'INSERT INTO user_clocks (user_id, last_modified_at) SELECT * FROM unnest($1::text[], $2::bigint[])',
          [rows.clocks.map((row) => row.userId), rows.clocks.map((row) => row.lastModifiedAt)],
        );
      }),
    );
    return { location: store.url, remove: () => store.remove() };
  },
  clockRows: postgresClockRows,
  reopen: (url) => openStorage(url),
  async forget(url, forgotten) {
    await withPostgres(url, (sql) =>
      sql.unsafe('UPDATE user_clocks SET live_count = NULL, digest_sum = NULL WHERE user_id = ANY($1::text[])', [
        [...forgotten],
      ]),
    );
  },
});
