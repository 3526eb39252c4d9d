import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { digestApiKey, displayPrefix, generateApiKey } from '../../src/domain/api-key.js';
import { feedStart } from '../../src/domain/feed-start.js';
import { type FeedPosition, MEAL_FIELDS, type MealContent } from '../../src/domain/meal.js';
import { randomId } from '../../src/domain/random-id.js';
import { AppError } from '../../src/errors.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { FeedPage, FeedQuery } from '../../src/storage/meal-feed.js';
import type { NewApiKey } from '../../src/domain/key-records.js';
import type { Storage } from '../../src/storage/storage.js';
import { cleanEnv, PROJECT_ROOT } from '../support/project.js';
import { runAppStoreSuite } from './app-store.suite.js';

const T0 = Date.UTC(2025, 5, 10, 12);
const DAY = 86_400_000;
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'open-store-child.ts');

function meal(id: string, fields: Partial<MealContent> = {}): MealContent {
  return {
    id,
    description: `about ${id}`,
    title: `meal ${id}`,
    type: 'lunch',
    date: Date.UTC(2025, 5, 1, 12),
    caloriesTotal: 500,
    proteins_g: 20,
    fats_g: null,
    carbs_g: 60.5,
    fibers_g: null,
    sodium_mg: 300,
    iron_mg: null,
    calcium_mg: 100,
    ...fields,
  };
}

interface FeedItem {
  readonly id: string;
  readonly modifiedAt: string;
  readonly deleted?: boolean;
  readonly [field: string]: unknown;
}

/** A feed query as the endpoint makes it: lastModifiedSince (`from`) and a cursor (`after`). */
interface TestFeedQuery extends Partial<Omit<FeedQuery, 'start'>> {
  readonly userId: string;
  readonly from?: number;
  readonly after?: FeedPosition | undefined;
}

async function feed(storage: Storage, query: TestFeedQuery): Promise<FeedPage> {
  const { from = 0, after, ...rest } = query;
  return storage.feed.listFeed({ includeDeleted: false, limit: 5000, ...rest, start: feedStart(from, after) });
}

/** Each item's JSON text: the page's bytes are the items joined by commas. */
function itemTexts(page: FeedPage): string[] {
  const items = JSON.parse(`[${page.items.toString('utf8')}]`) as FeedItem[];
  assert.equal(items.length, page.count, 'count equals the number of items');
  return items.map((item) => JSON.stringify(item));
}

async function feedItems(storage: Storage, query: TestFeedQuery): Promise<FeedItem[]> {
  return itemTexts(await feed(storage, query)).map((text) => JSON.parse(text) as FeedItem);
}

const at = (epochMs: number) => new Date(epochMs).toISOString();

/**
 * One storage backend for the shared suite (Hono's way: one suite, every implementation).
 * Every behaviour of the Storage interface is tested here once and run on each adapter.
 */
export interface StorageBackend {
  readonly name: string;
  /** Why the backend cannot be tested here (no server), or undefined. */
  readonly skip: string | undefined;
  /** A new, empty store: what `--db` takes (a SQLite file path, a postgres:// URL). */
  newLocation(label: string): Promise<{ readonly location: string; remove(): Promise<void> }>;
  /** The versions recorded in the store's schema_migrations, in order. */
  appliedMigrations(location: string): Promise<number[]>;
}

export function runStorageSuite(backend: StorageBackend): void {
  runAppStoreSuite(backend.name, backend.skip, async () => {
    const { location, remove } = await backend.newLocation('app');
    const storage = await openStorage(location);
    return {
      storage,
      async dispose() {
        await storage.close();
        await remove();
      },
    };
  });

  /** Runs `work` with a fresh, empty store; it is removed after. */
  async function withStore(work: (storage: Storage, location: string) => Promise<void>): Promise<void> {
    const { location, remove } = await backend.newLocation('suite');
    const storage = await openStorage(location);
    try {
      await work(storage, location);
    } finally {
      await storage.close();
      await remove();
    }
  }

  describe(`${backend.name} storage`, { skip: backend.skip ?? false }, () => {
    describe(`${backend.name} storage: meals`, () => {
      test('an upsert creates meals with strictly increasing modifiedAt in input order', async () => {
        await withStore(async (storage) => {
          assert.deepEqual(await storage.writes.upsertMeals('u1', [meal('a'), meal('b'), meal('c')], T0), {
            ok: true,
            created: 3,
            updated: 0,
            unchanged: 0,
          });
          const items = await feedItems(storage, { userId: 'u1' });
          assert.deepEqual(
            items.map((item) => [item.id, item.modifiedAt]),
            [
              ['a', at(T0)],
              ['b', at(T0 + 1)],
              ['c', at(T0 + 2)],
            ],
          );
          assert.deepEqual(Object.keys(items[0] ?? {}), [...MEAL_FIELDS]);
          assert.deepEqual(items[0], {
            ...meal('a'),
            date: '2025-06-01T12:00:00.000Z',
            modifiedAt: at(T0),
          });
        });
      });

      test('an update gets a later modifiedAt, moves the meal to the end of the feed and changes its fields', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a'), meal('b'), meal('c')], T0);
          assert.deepEqual(
            await storage.writes.upsertMeals('u1', [meal('a', { title: 'renamed', caloriesTotal: null })], T0),
            {
              ok: true,
              created: 0,
              updated: 1,
              unchanged: 0,
            },
          );
          const items = await feedItems(storage, { userId: 'u1' });
          assert.deepEqual(
            items.map((item) => [item.id, item.modifiedAt]),
            [
              ['b', at(T0 + 1)],
              ['c', at(T0 + 2)],
              ['a', at(T0 + 3)],
            ],
          );
          assert.equal(items[2]?.title, 'renamed');
          assert.equal(items[2]?.caloriesTotal, null);
          assert.equal(items.length, 3, 'an update never leaves the old version behind');
        });
      });

      test('modifiedAt follows the wall clock when it is ahead, and never goes back when it is behind', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a')], T0);
          await storage.writes.upsertMeals('u1', [meal('b')], T0 + 60_000);
          await storage.writes.upsertMeals('u1', [meal('c')], T0 - DAY);
          assert.equal(await storage.writes.deleteMeal('u1', 'a', T0 - DAY), 'deleted');
          const items = await feedItems(storage, { userId: 'u1', includeDeleted: true });
          assert.deepEqual(
            items.map((item) => [item.id, item.modifiedAt]),
            [
              ['b', at(T0 + 60_000)],
              ['c', at(T0 + 60_001)],
              ['a', at(T0 + 60_002)],
            ],
          );
        });
      });

      test('each user has a change clock of their own', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
          await storage.writes.upsertMeals('u2', [meal('x')], T0);
          assert.deepEqual(
            (await feedItems(storage, { userId: 'u2' })).map((item) => [item.id, item.modifiedAt]),
            [['x', at(T0)]],
          );
          assert.deepEqual(
            (await feedItems(storage, { userId: 'u1' })).map((item) => item.id),
            ['a', 'b'],
          );
        });
      });

      test("an upsert naming another user's meal id writes nothing and reports that meal's index", async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a')], T0);
          const before = await feed(storage, { userId: 'u1', includeDeleted: true });
          assert.deepEqual(
            await storage.writes.upsertMeals('u2', [meal('new1'), meal('new2'), meal('a'), meal('new3')], T0 + 5),
            {
              ok: false,
              reason: 'foreign_id',
              index: 2,
            },
          );
          assert.deepEqual(itemTexts(await feed(storage, { userId: 'u2', includeDeleted: true })), []);
          assert.deepEqual(await feed(storage, { userId: 'u1', includeDeleted: true }), before);
          // Nothing of the refused batch stayed: its ids are free, and u2's clock did not move.
          await storage.writes.upsertMeals('u2', [meal('new1')], T0);
          assert.deepEqual(
            (await feedItems(storage, { userId: 'u2' })).map((item) => [item.id, item.modifiedAt]),
            [['new1', at(T0)]],
          );
        });
      });

      test('an import takes its batches in one transaction: modifiedAt increases across them and an id repeated in a later batch is an update', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('old'), meal('same')], T0);
          async function* batches() {
            yield [meal('a'), meal('same')];
            yield [meal('b'), meal('old', { title: 'changed' })];
            yield [meal('a', { title: 'again' }), meal('c')];
          }
          assert.deepEqual(await storage.writes.importMeals('u1', batches(), T0), {
            ok: true,
            created: 3,
            updated: 2,
            unchanged: 1,
          });
          const items = await feedItems(storage, { userId: 'u1' });
          assert.deepEqual(
            items.map((item) => [item.id, item.title, item.modifiedAt]),
            [
              ['same', 'meal same', at(T0 + 1)],
              ['b', 'meal b', at(T0 + 3)],
              ['old', 'changed', at(T0 + 4)],
              ['a', 'again', at(T0 + 5)],
              ['c', 'meal c', at(T0 + 6)],
            ],
          );
        });
      });

      test("an import with another user's id in a later batch writes nothing and counts the index from the first batch", async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('theirs')], T0);
          async function* batches() {
            yield [meal('n1'), meal('n2')];
            yield [meal('n3'), meal('theirs'), meal('n4')];
            yield [meal('n5')];
          }
          assert.deepEqual(await storage.writes.importMeals('u2', batches(), T0), {
            ok: false,
            reason: 'foreign_id',
            index: 3,
          });
          assert.deepEqual(itemTexts(await feed(storage, { userId: 'u2', includeDeleted: true })), []);
          // The ids of the rolled-back batches are free again.
          assert.equal((await storage.writes.upsertMeals('u2', [meal('n1'), meal('n3')], T0)).ok, true);
        });
      });

      test('an import whose batches fail midway rolls back every batch and passes the error on', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('kept')], T0);
          const before = await feed(storage, { userId: 'u1', includeDeleted: true });
          const bad = new Error('a bad record at line 3');
          async function* batches() {
            yield [meal('x1'), meal('kept', { title: 'changed' })];
            yield [meal('x2')];
            throw bad;
          }
          await assert.rejects(storage.writes.importMeals('u1', batches(), T0 + 10), (error) => error === bad);
          assert.deepEqual(await feed(storage, { userId: 'u1', includeDeleted: true }), before);
          // The store is usable after: the clock did not move, the transaction is gone.
          await storage.writes.upsertMeals('u1', [meal('after')], T0);
          assert.deepEqual(
            (await feedItems(storage, { userId: 'u1' })).map((item) => [item.id, item.modifiedAt]),
            [
              ['kept', at(T0)],
              ['after', at(T0 + 1)],
            ],
          );
        });
      });

      test("an import whose input is slow to begin locks nothing until its first batch: the user's other writes, through another handle, go on", async () => {
        await withStore(async (storage, location) => {
          const second = await openStorage(location);
          try {
            let asked: () => void = () => undefined;
            const askedForFirst = new Promise<void>((resolve) => (asked = resolve));
            let begin: () => void = () => undefined;
            const begun = new Promise<void>((resolve) => (begin = resolve));
            async function* batches() {
              asked();
              await begun; // a producer that has not written its first line yet
              yield [meal('imported')];
            }
            const importing = storage.writes.importMeals('u1', batches(), T0);
            await askedForFirst;
            // The import waits for its input. Another process (SQLite) or instance (PostgreSQL)
            // writes the same user meanwhile: it must not wait for that input, which would
            // never come before it.
            const written = second.writes.upsertMeals('u1', [meal('meanwhile')], T0);
            const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 3_000).unref());
            assert.deepEqual(await Promise.race([written, waited]), { ok: true, created: 1, updated: 0, unchanged: 0 });
            begin();
            assert.deepEqual(await importing, { ok: true, created: 1, updated: 0, unchanged: 0 });
            assert.deepEqual(
              (await feedItems(storage, { userId: 'u1' })).map((item) => [item.id, item.modifiedAt]),
              [
                ['meanwhile', at(T0)],
                ['imported', at(T0 + 1)],
              ],
            );
          } finally {
            await second.close();
          }
        });
      });

      test("another user's deleted meal id is still theirs: an upsert of it is refused", async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a')], T0);
          await storage.writes.deleteMeal('u1', 'a', T0);
          assert.deepEqual(await storage.writes.upsertMeals('u2', [meal('a')], T0), {
            ok: false,
            reason: 'foreign_id',
            index: 0,
          });
        });
      });

      test('deleting a meal leaves a tombstone of exactly id, modifiedAt and deleted true, as a new change', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
          assert.equal(await storage.writes.deleteMeal('u1', 'a', T0), 'deleted');
          assert.deepEqual(
            (await feedItems(storage, { userId: 'u1' })).map((item) => item.id),
            ['b'],
          );
          const items = await feedItems(storage, { userId: 'u1', includeDeleted: true });
          assert.equal(items.length, 2);
          assert.deepEqual(items[1], { id: 'a', modifiedAt: at(T0 + 2), deleted: true });
          assert.deepEqual(Object.keys(items[1] ?? {}), ['id', 'modifiedAt', 'deleted']);
        });
      });

      test('deleting again reports already_deleted and makes no new change', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a')], T0);
          await storage.writes.deleteMeal('u1', 'a', T0);
          const before = await feed(storage, { userId: 'u1', includeDeleted: true });
          assert.equal(await storage.writes.deleteMeal('u1', 'a', T0 + 1000), 'already_deleted');
          assert.deepEqual(await feed(storage, { userId: 'u1', includeDeleted: true }), before);
          await storage.writes.upsertMeals('u1', [meal('b')], T0);
          assert.equal((await feedItems(storage, { userId: 'u1' }))[0]?.modifiedAt, at(T0 + 2));
        });
      });

      test("deleting an unknown meal, or another user's, reports not_found and changes nothing", async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a')], T0);
          const before = await feed(storage, { userId: 'u1', includeDeleted: true });
          assert.equal(await storage.writes.deleteMeal('u1', 'nope', T0), 'not_found');
          assert.equal(await storage.writes.deleteMeal('u2', 'a', T0), 'not_found');
          assert.deepEqual(await feed(storage, { userId: 'u1', includeDeleted: true }), before);
          assert.deepEqual(itemTexts(await feed(storage, { userId: 'u2', includeDeleted: true })), []);
        });
      });

      test('a deleted meal comes back to life on upsert, as a new change at the end of the feed', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
          await storage.writes.deleteMeal('u1', 'a', T0);
          const result = await storage.writes.upsertMeals('u1', [meal('a', { title: 'back' })], T0);
          assert.ok(result.ok);
          assert.equal(result.created + result.updated, 1);
          const items = await feedItems(storage, { userId: 'u1', includeDeleted: true });
          assert.deepEqual(
            items.map((item) => [item.id, item.modifiedAt, item.deleted]),
            [
              ['b', at(T0 + 1), false],
              ['a', at(T0 + 3), false],
            ],
          );
          assert.equal(items[1]?.title, 'back');
        });
      });

      test('the same id twice in one upsert is written twice, the second version winning', async () => {
        await withStore(async (storage) => {
          assert.deepEqual(
            await storage.writes.upsertMeals('u1', [meal('a', { title: 'one' }), meal('a', { title: 'two' })], T0),
            {
              ok: true,
              created: 1,
              updated: 1,
              unchanged: 0,
            },
          );
          const items = await feedItems(storage, { userId: 'u1' });
          assert.deepEqual(
            items.map((item) => [item.id, item.title, item.modifiedAt]),
            [['a', 'two', at(T0 + 1)]],
          );
        });
      });

      test('meals upserted again unchanged are no change: counted unchanged, their modifiedAt, the feed and the clock stay', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a'), meal('b'), meal('c')], T0);
          await storage.writes.deleteMeal('u1', 'c', T0);
          const before = await feed(storage, { userId: 'u1', includeDeleted: true });
          assert.deepEqual(await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0 + 60_000), {
            ok: true,
            created: 0,
            updated: 0,
            unchanged: 2,
          });
          assert.deepEqual(await feed(storage, { userId: 'u1', includeDeleted: true }), before);
          // The clock did not move: a later change behind the wall clock gets the old last + 1 ms,
          // and one ahead of it gets the wall clock.
          await storage.writes.upsertMeals('u1', [meal('a', { title: 'changed' })], T0);
          await storage.writes.upsertMeals('u1', [meal('b', { title: 'changed' })], T0 + 5000);
          assert.deepEqual(
            (await feedItems(storage, { userId: 'u1', includeDeleted: true })).map((item) => [
              item.id,
              item.modifiedAt,
            ]),
            [
              ['c', at(T0 + 3)],
              ['a', at(T0 + 4)],
              ['b', at(T0 + 5000)],
            ],
          );
        });
      });

      test('in a mixed upsert only the changed and new meals take clock values, one after the other', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
          assert.deepEqual(
            await storage.writes.upsertMeals(
              'u1',
              [meal('a'), meal('b', { title: 'changed' }), meal('a'), meal('d')],
              T0,
            ),
            { ok: true, created: 1, updated: 1, unchanged: 2 },
          );
          assert.deepEqual(
            (await feedItems(storage, { userId: 'u1' })).map((item) => [item.id, item.modifiedAt, item.title]),
            [
              ['a', at(T0), 'meal a'],
              ['b', at(T0 + 2), 'changed'],
              ['d', at(T0 + 3), 'meal d'],
            ],
          );
        });
      });

      test('a meal differing in any one field is an update: null and a number, "" and text, a date 1 ms apart', async () => {
        await withStore(async (storage) => {
          const changes: Partial<MealContent>[] = [
            { fats_g: 0 },
            { caloriesTotal: null },
            { carbs_g: 60.50001 },
            { title: '' },
            { description: 'About a' },
            { type: 'dinner' },
            { date: Date.UTC(2025, 5, 1, 12) + 1 },
          ];
          const ids = changes.map((_, i) => `f${i}`);
          await storage.writes.upsertMeals(
            'u1',
            ids.map((id) => meal(id)),
            T0,
          );
          for (const [i, change] of changes.entries()) {
            const id = ids[i] ?? '';
            const result = await storage.writes.upsertMeals('u1', [meal(id, change)], T0);
            assert.deepEqual(result, { ok: true, created: 0, updated: 1, unchanged: 0 }, JSON.stringify(change));
            const last = (await feedItems(storage, { userId: 'u1' })).at(-1);
            assert.deepEqual([last?.id, last?.modifiedAt], [id, at(T0 + changes.length + i)]);
          }
        });
      });

      test('a deleted meal upserted again with the same fields comes back to life: an update, not unchanged', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
          await storage.writes.deleteMeal('u1', 'a', T0);
          assert.deepEqual(await storage.writes.upsertMeals('u1', [meal('a')], T0), {
            ok: true,
            created: 0,
            updated: 1,
            unchanged: 0,
          });
          assert.deepEqual(
            (await feedItems(storage, { userId: 'u1', includeDeleted: true })).map((item) => [
              item.id,
              item.modifiedAt,
              item.deleted,
            ]),
            [
              ['b', at(T0 + 1), false],
              ['a', at(T0 + 3), false],
            ],
          );
        });
      });

      test('the same id twice in one upsert: a second record equal to what the first wrote is unchanged', async () => {
        await withStore(async (storage) => {
          // A new user (SQLite's append-only first write falls back to looking ids up).
          assert.deepEqual(await storage.writes.upsertMeals('u1', [meal('a'), meal('b'), meal('a')], T0), {
            ok: true,
            created: 2,
            updated: 0,
            unchanged: 1,
          });
          // A user with meals: the first record changes a, the second equals that change.
          const changed = meal('a', { title: 'changed' });
          assert.deepEqual(await storage.writes.upsertMeals('u1', [changed, changed], T0), {
            ok: true,
            created: 0,
            updated: 1,
            unchanged: 1,
          });
          // Each record meets the version the one before it wrote, not the stored one: back to
          // the stored fields after a change is a second change.
          assert.deepEqual(await storage.writes.upsertMeals('u1', [meal('b', { title: 'x' }), meal('b')], T0), {
            ok: true,
            created: 0,
            updated: 2,
            unchanged: 0,
          });
          assert.deepEqual(
            (await feedItems(storage, { userId: 'u1' })).map((item) => [item.id, item.modifiedAt, item.title]),
            [
              ['a', at(T0 + 2), 'changed'],
              ['b', at(T0 + 4), 'meal b'],
            ],
          );
        });
      });

      test('text with quotes, newlines and unicode survives storage as valid JSON', async () => {
        await withStore(async (storage) => {
          const tricky = meal('m,"1"🍝', { description: 'line1\nline2 "quoted" \\ é', title: '' });
          await storage.writes.upsertMeals('u1', [tricky], T0);
          for (const includeDeleted of [false, true]) {
            const [item] = await feedItems(storage, { userId: 'u1', includeDeleted });
            assert.equal(item?.id, tricky.id);
            assert.equal(item?.description, tricky.description);
            assert.equal(item?.title, '');
          }
        });
      });
    });

    describe(`${backend.name} storage: the feed`, () => {
      /** Five meals m1..m5 at T0..T0+4, and m2 then deleted at T0+5. */
      async function seed(storage: Storage): Promise<void> {
        await storage.writes.upsertMeals(
          'u1',
          ['m1', 'm2', 'm3', 'm4', 'm5'].map((id) => meal(id)),
          T0,
        );
        await storage.writes.deleteMeal('u1', 'm2', T0);
      }

      test('from is inclusive', async () => {
        await withStore(async (storage) => {
          await seed(storage);
          const items = await feedItems(storage, { userId: 'u1', from: T0 + 2 });
          assert.deepEqual(
            items.map((item) => item.id),
            ['m3', 'm4', 'm5'],
          );
          assert.deepEqual(await feedItems(storage, { userId: 'u1', from: T0 + 6 }), []);
        });
      });

      test('after is exclusive, and with from both filter: the later of the two is where the page starts', async () => {
        await withStore(async (storage) => {
          await seed(storage);
          const ids = async (query: TestFeedQuery) => (await feedItems(storage, query)).map((item) => item.id);
          const after = { modifiedAt: T0 + 2, id: 'm3' };
          assert.deepEqual(await ids({ userId: 'u1', after }), ['m4', 'm5']);
          assert.deepEqual(await ids({ userId: 'u1', after, from: 0 }), ['m4', 'm5']);
          assert.deepEqual(
            await ids({ userId: 'u1', after, from: T0 + 2 }),
            ['m4', 'm5'],
            'a cursor at from: the cursor',
          );
          assert.deepEqual(await ids({ userId: 'u1', after, from: T0 + 4 }), ['m5'], 'from later than the cursor');
          assert.deepEqual(await ids({ userId: 'u1', after, from: T0 + 100 }), []);
        });
      });

      test('a position between two changes resumes at the next one, by (modifiedAt, id)', async () => {
        await withStore(async (storage) => {
          await seed(storage);
          const ids = async (after: { modifiedAt: number; id: string }) =>
            (await feedItems(storage, { userId: 'u1', after })).map((item) => item.id);
          assert.deepEqual(await ids({ modifiedAt: T0 + 2, id: 'm2' }), ['m3', 'm4', 'm5']);
          assert.deepEqual(await ids({ modifiedAt: T0 + 2, id: 'm4' }), ['m4', 'm5']);
          assert.deepEqual(await ids({ modifiedAt: T0 + 2, id: '' }), ['m3', 'm4', 'm5']);
        });
      });

      test('without includeDeleted no item has deleted; with it live meals end with "deleted":false}', async () => {
        await withStore(async (storage) => {
          await seed(storage);
          const plain = await feed(storage, { userId: 'u1' });
          for (const text of itemTexts(plain)) assert.equal(text.includes('"deleted"'), false, text);
          const all = await feed(storage, { userId: 'u1', includeDeleted: true });
          assert.equal(all.count, 5);
          for (const text of itemTexts(all)) {
            const item = JSON.parse(text) as FeedItem;
            if (item.deleted === true) continue;
            assert.ok(text.endsWith(',"deleted":false}'), text);
            assert.deepEqual(Object.keys(item), [...MEAL_FIELDS, 'deleted']);
          }
          assert.equal(itemTexts(all)[4], `{"id":"m2","modifiedAt":"${at(T0 + 5)}","deleted":true}`);
        });
      });

      test('a page of thousands of meals comes back in feed order, byte for byte the stored JSON joined by commas', async () => {
        await withStore(async (storage) => {
          // Ids out of byte order, so that only (modifiedAt, id) order can give the expected list.
          const meals = Array.from({ length: 3000 }, (_, i) => meal(`id-${(i * 7919) % 3000}`));
          assert.equal((await storage.writes.upsertMeals('big', meals, T0)).ok, true);
          const page = await feed(storage, { userId: 'big', limit: 5000 });
          const items = itemTexts(page).map((text) => JSON.parse(text) as FeedItem);
          assert.deepEqual(
            items.map((item) => item.id),
            meals.map((meal) => meal.id),
          );
          for (let i = 1; i < items.length; i += 1) {
            assert.ok(String(items[i - 1]?.modifiedAt) < String(items[i]?.modifiedAt), `order broken at ${i}`);
          }
          assert.equal(page.items.toString('utf8'), itemTexts(page).join(','));
        });
      });

      test('pages of limit items report hasMore and the last position, and paging by it misses nothing', async () => {
        await withStore(async (storage) => {
          await seed(storage);
          const seen: string[] = [];
          const pages: Array<[number, boolean]> = [];
          let after: FeedPosition | undefined;
          for (;;) {
            const page = await feed(storage, { userId: 'u1', includeDeleted: true, limit: 2, after });
            const texts = itemTexts(page);
            pages.push([page.count, page.hasMore]);
            for (const text of texts) seen.push((JSON.parse(text) as FeedItem).id);
            if (page.last !== undefined) {
              const lastItem = JSON.parse(texts.at(-1) ?? '{}') as FeedItem;
              assert.deepEqual(page.last, { modifiedAt: Date.parse(lastItem.modifiedAt), id: lastItem.id });
              after = page.last;
            }
            if (!page.hasMore) break;
          }
          assert.deepEqual(pages, [
            [2, true],
            [2, true],
            [1, false],
          ]);
          assert.deepEqual(seen, ['m1', 'm3', 'm4', 'm5', 'm2']);
        });
      });

      test('a page that ends exactly at the last item has hasMore false; an empty page has no last position', async () => {
        await withStore(async (storage) => {
          await seed(storage);
          const full = await feed(storage, { userId: 'u1', limit: 4 });
          assert.equal(full.count, 4);
          assert.equal(full.hasMore, false);
          const empty = await feed(storage, { userId: 'u1', after: full.last });
          const none = {
            items: Buffer.alloc(0),
            count: 0,
            last: undefined,
            hasMore: false,
            newestChangeAt: undefined,
            prunedThrough: undefined,
          };
          // Empty, but the user's clock is still read: m2's deletion at T0 + 5 is the newest change.
          assert.deepEqual(empty, { ...none, newestChangeAt: T0 + 5 });
          assert.deepEqual(await feed(storage, { userId: 'nobody' }), none);
          assert.deepEqual(await feed(storage, { userId: 'nobody', includeDeleted: true }), none);
        });
      });

      test('a change made while a client pages shows up after its cursor, so resuming sees it', async () => {
        await withStore(async (storage) => {
          await seed(storage);
          const first = await feed(storage, { userId: 'u1', includeDeleted: true, limit: 2 });
          await storage.writes.upsertMeals('u1', [meal('m1', { title: 'changed' })], T0);
          await storage.writes.deleteMeal('u1', 'm3', T0);
          const rest = await feedItems(storage, { userId: 'u1', includeDeleted: true, after: first.last });
          assert.deepEqual(
            rest.map((item) => [item.id, item.deleted]),
            [
              ['m4', false],
              ['m5', false],
              ['m2', true],
              ['m1', false],
              ['m3', true],
            ],
          );
        });
      });

      test('the feed is in (modifiedAt, id) order with one change per millisecond per user', async () => {
        await withStore(async (storage) => {
          const ids = Array.from({ length: 200 }, () => randomId('m_'));
          await storage.writes.upsertMeals(
            'u1',
            ids.slice(0, 100).map((id) => meal(id)),
            T0,
          );
          await storage.writes.upsertMeals(
            'u1',
            ids.slice(100).map((id) => meal(id)),
            T0,
          );
          await storage.writes.upsertMeals(
            'u1',
            ids.slice(50, 60).map((id) => meal(id, { title: 'changed' })),
            T0,
          );
          const items = await feedItems(storage, { userId: 'u1' });
          assert.equal(items.length, 200);
          const times = items.map((item) => Date.parse(item.modifiedAt));
          for (let i = 1; i < times.length; i += 1) assert.ok(times[i - 1]! < times[i]!, `item ${i}`);
          assert.deepEqual(
            items.slice(-10).map((item) => item.id),
            ids.slice(50, 60),
          );
        });
      });

      test("every page carries the user's newest change of any kind, wherever the page is and whatever it holds", async () => {
        await withStore(async (storage) => {
          assert.equal((await feed(storage, { userId: 'u1' })).newestChangeAt, undefined, 'no change yet');
          await storage.writes.upsertMeals('u1', [meal('m1'), meal('m2'), meal('m3')], T0);
          await storage.writes.upsertMeals('u2', [meal('other')], T0 + 1000);
          const pages = [
            await feed(storage, { userId: 'u1', limit: 1 }),
            await feed(storage, { userId: 'u1', from: T0 + 1, limit: 1 }),
            await feed(storage, { userId: 'u1', after: { modifiedAt: T0 + 2, id: 'm3' } }),
            await feed(storage, { userId: 'u1', includeDeleted: true, limit: 1 }),
            await feed(storage, { userId: 'u1', includeDeleted: true, after: { modifiedAt: T0 + 2, id: 'm3' } }),
          ];
          assert.deepEqual(
            pages.map((page) => page.newestChangeAt),
            pages.map(() => T0 + 2),
          );
          // A deletion is a change; an upsert of equal meals is none; the clock outlives pruning.
          await storage.writes.deleteMeal('u1', 'm1', T0);
          assert.equal((await feed(storage, { userId: 'u1' })).newestChangeAt, T0 + 3);
          await storage.writes.upsertMeals('u1', [meal('m2')], T0 + 50);
          assert.equal((await feed(storage, { userId: 'u1', includeDeleted: true })).newestChangeAt, T0 + 3);
          assert.equal(await storage.writes.pruneTombstones(T0 + 10), 1);
          assert.equal((await feed(storage, { userId: 'u1', includeDeleted: true })).newestChangeAt, T0 + 3);
          assert.equal((await feed(storage, { userId: 'u2' })).newestChangeAt, T0 + 1000);
        });
      });

      test("a page's newest change is of its own snapshot: every change committed after it has a later modifiedAt, so following from it + 1 ms misses none", async () => {
        await withStore(async (storage, location) => {
          const second = await openStorage(location);
          try {
            const ids = Array.from({ length: 30 }, (_, i) => `c${i}`);
            await storage.writes.upsertMeals(
              'u1',
              ids.slice(0, 10).map((id) => meal(id)),
              Date.now(),
            );
            // Two instances write (creates, changes, deletions), a page read after each write is
            // sent (on PostgreSQL the two race; on SQLite a write is done when its call returns);
            // a writer whose clock lags behind by an hour still gets the user's last modifiedAt + 1 ms.
            const snapshots: { seen: Set<string>; clock: number }[] = [];
            for (const [i, id] of ids.entries()) {
              const store = i % 2 === 0 ? storage : second;
              const now = i % 3 === 0 ? Date.now() - 3_600_000 : Date.now();
              const write =
                i < 10 && i % 2 === 0
                  ? store.writes.deleteMeal('u1', id, now)
                  : store.writes.upsertMeals('u1', [meal(id)], now);
              const page = await feed(storage, { userId: 'u1', includeDeleted: true, limit: 5000 });
              await write;
              const items = itemTexts(page).map((text) => JSON.parse(text) as FeedItem);
              assert.ok(page.newestChangeAt !== undefined);
              const newest = Math.max(...items.map((item) => Date.parse(item.modifiedAt)));
              assert.equal(page.newestChangeAt, newest, 'the clock is the newest item of the same snapshot');
              snapshots.push({ seen: new Set(items.map((item) => `${item.id}@${item.modifiedAt}`)), clock: newest });
            }
            const final = await feedItems(storage, { userId: 'u1', includeDeleted: true });
            let behind = 0;
            for (const { seen, clock } of snapshots) {
              // What that snapshot did not hold is exactly what a follow from its clock + 1 ms reads.
              const unseen = final.filter((item) => !seen.has(`${item.id}@${item.modifiedAt}`));
              const followed = await feedItems(storage, { userId: 'u1', includeDeleted: true, from: clock + 1 });
              assert.deepEqual(followed, unseen);
              if (unseen.length > 0) behind += 1;
            }
            assert.ok(
              behind >= snapshots.length / 2,
              `only ${behind} of ${snapshots.length} pages missed a later write`,
            );
          } finally {
            await second.close();
          }
        });
      });

      test('another user never sees these meals', async () => {
        await withStore(async (storage) => {
          await seed(storage);
          assert.deepEqual(itemTexts(await feed(storage, { userId: 'u2', includeDeleted: true })), []);
        });
      });

      test('exportMeals yields live meals from since (inclusive) in feed order', async () => {
        await withStore(async (storage) => {
          await seed(storage);
          const exported: string[] = [];
          for await (const m of storage.feed.exportMeals('u1', T0 + 1)) exported.push(`${m.id}@${m.modifiedAt - T0}`);
          assert.deepEqual(exported, ['m3@2', 'm4@3', 'm5@4']);
        });
      });
    });

    describe(`${backend.name} storage: tombstone pruning`, () => {
      test('removes only tombstones older than the bound, never live meals, and the clock never goes back', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('old-live'), meal('old-dead')], T0 - 40 * DAY);
          await storage.writes.deleteMeal('u1', 'old-dead', T0 - 40 * DAY);
          await storage.writes.upsertMeals('u1', [meal('new-dead')], T0);
          await storage.writes.deleteMeal('u1', 'new-dead', T0);
          await storage.writes.upsertMeals('u2', [meal('other-dead')], T0 - 40 * DAY);
          await storage.writes.deleteMeal('u2', 'other-dead', T0 - 40 * DAY);

          assert.equal(await storage.writes.pruneTombstones(T0 - 30 * DAY), 2);
          assert.deepEqual(
            (await feedItems(storage, { userId: 'u1', includeDeleted: true })).map((item) => [item.id, item.deleted]),
            [
              ['old-live', false],
              ['new-dead', true],
            ],
          );
          assert.deepEqual(itemTexts(await feed(storage, { userId: 'u2', includeDeleted: true })), []);
          assert.equal(await storage.writes.pruneTombstones(T0 - 30 * DAY), 0);

          await storage.writes.upsertMeals('u2', [meal('u2-next')], T0 - 50 * DAY);
          assert.equal((await feedItems(storage, { userId: 'u2' }))[0]?.modifiedAt, at(T0 - 40 * DAY + 2));
        });
      });

      test('a tombstone exactly at the bound is kept', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a')], T0 - 1);
          await storage.writes.deleteMeal('u1', 'a', T0);
          assert.equal(await storage.writes.pruneTombstones(T0), 0);
          assert.equal(await storage.writes.pruneTombstones(T0 + 1), 1);
        });
      });

      const prunedThrough = async (storage: Storage, userId: string, includeDeleted = true) =>
        (await feed(storage, { userId, includeDeleted, from: T0 + 1000 })).prunedThrough;

      test("each user's page reports the newest tombstone pruned for that user, only with includeDeleted", async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a'), meal('b'), meal('c')], T0);
          await storage.writes.deleteMeal('u1', 'a', T0); // T0+3
          await storage.writes.deleteMeal('u1', 'b', T0); // T0+4
          await storage.writes.upsertMeals('u2', [meal('x')], T0);
          assert.equal(await prunedThrough(storage, 'u1'), undefined, 'nothing pruned yet');

          assert.equal(await storage.writes.pruneTombstones(T0 + 100), 2);
          assert.deepEqual(await prunedThrough(storage, 'u1'), { modifiedAt: T0 + 4, id: 'b' });
          assert.equal(await prunedThrough(storage, 'u1', false), undefined, 'not read without includeDeleted');
          assert.equal(await prunedThrough(storage, 'u2'), undefined, "another user's prune changes nothing");
          assert.equal(await prunedThrough(storage, 'nobody'), undefined);
        });
      });

      test('the watermark moves forward with later prunes and never back, and a revived meal keeps it', async () => {
        await withStore(async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
          await storage.writes.deleteMeal('u1', 'a', T0); // T0+2
          assert.equal(await storage.writes.pruneTombstones(T0 + 100), 1);
          await storage.writes.deleteMeal('u1', 'b', T0 + 200);
          assert.equal(
            await storage.writes.pruneTombstones(T0 + 100),
            0,
            'the newer tombstone is inside the retention',
          );
          assert.deepEqual(await prunedThrough(storage, 'u1'), { modifiedAt: T0 + 2, id: 'a' });
          await storage.writes.upsertMeals('u1', [meal('a')], T0 + 300);
          assert.equal(await storage.writes.pruneTombstones(T0 + 1000), 1);
          assert.deepEqual(await prunedThrough(storage, 'u1'), { modifiedAt: T0 + 200, id: 'b' });
          assert.equal(await storage.writes.pruneTombstones(T0 + 5000), 0);
          assert.deepEqual(await prunedThrough(storage, 'u1'), { modifiedAt: T0 + 200, id: 'b' });
        });
      });

      test('the watermark survives closing and reopening the store', async () => {
        const { location, remove } = await backend.newLocation('reopen');
        try {
          const first = await openStorage(location);
          await first.writes.upsertMeals('u1', [meal('a')], T0);
          await first.writes.deleteMeal('u1', 'a', T0);
          await first.writes.pruneTombstones(T0 + 100);
          await first.close();
          const again = await openStorage(location);
          assert.deepEqual(await prunedThrough(again, 'u1'), { modifiedAt: T0 + 1, id: 'a' });
          await again.close();
        } finally {
          await remove();
        }
      });
    });

    describe(`${backend.name} storage: API keys`, () => {
      function newKey(userId: string, expiresAt: number | null = null): NewApiKey {
        const key = generateApiKey();
        return {
          id: randomId('key_'),
          userId,
          name: `key of ${userId}`,
          prefix: displayPrefix(key),
          digest: digestApiKey(key),
          createdAt: T0,
          expiresAt,
        };
      }

      test('stores a key and finds it by digest, with no plain key or digest in the record', async () => {
        await withStore(async (storage) => {
          const key = newKey('u1', T0 + DAY);
          const created = await storage.keys.createApiKey(key, 10, T0);
          const expected = {
            id: key.id,
            userId: 'u1',
            name: 'key of u1',
            prefix: key.prefix,
            createdAt: T0,
            expiresAt: T0 + DAY,
            lastUsedAt: null,
            revokedAt: null,
          };
          assert.deepEqual(created, { ok: true, key: expected });
          assert.deepEqual(await storage.keys.findApiKeysByDigests([key.digest]), [expected]);
          assert.deepEqual(await storage.keys.listApiKeys('u1'), [expected]);
          assert.deepEqual(await storage.keys.findApiKeysByDigests([digestApiKey(generateApiKey())]), [undefined]);
        });
      });

      test('finds a batch of digests in one call, in the order asked, unknown ones as undefined', async () => {
        await withStore(async (storage) => {
          const [a, b] = [newKey('u1'), newKey('u2')];
          await storage.keys.createApiKey(a, 10, T0);
          await storage.keys.createApiKey(b, 10, T0);
          await storage.keys.revokeApiKey(b.id, T0 + 1);
          const unknown = digestApiKey(generateApiKey());
          const found = await storage.keys.findApiKeysByDigests([unknown, b.digest, a.digest, unknown, a.digest]);
          assert.deepEqual(
            found.map((key) => key?.id),
            [undefined, b.id, a.id, undefined, a.id],
          );
          assert.equal(found[1]?.revokedAt, T0 + 1, 'a revoked key is found, revoked');
          assert.deepEqual(await storage.keys.findApiKeysByDigests([]), []);
          const many = Array.from({ length: 1000 }, () => digestApiKey(generateApiKey()));
          many[999] = a.digest;
          const last = (await storage.keys.findApiKeysByDigests(many)).findIndex((key) => key !== undefined);
          assert.equal(last, 999, 'a batch of 1000');
        });
      });

      test('refuses a key whose id is taken (a creation sent twice), even at the limit, changing nothing', async () => {
        await withStore(async (storage) => {
          const first = newKey('u1');
          assert.equal((await storage.keys.createApiKey(first, 10, T0)).ok, true);
          const again = { ...newKey('u1'), id: first.id };
          assert.deepEqual(await storage.keys.createApiKey(again, 10, T0 + 1), { ok: false, reason: 'duplicate_id' });
          assert.deepEqual(await storage.keys.createApiKey(again, 1, T0 + 1), { ok: false, reason: 'duplicate_id' });
          const keys = await storage.keys.listApiKeys('u1');
          assert.deepEqual(
            keys.map((key) => [key.id, key.prefix]),
            [[first.id, first.prefix]],
          );
          assert.deepEqual(await storage.keys.findApiKeysByDigests([again.digest]), [undefined]);
        });
      });

      test('refuses an 11th active key, and other users are not counted', async () => {
        await withStore(async (storage) => {
          for (let i = 0; i < 10; i += 1)
            assert.equal((await storage.keys.createApiKey(newKey('u1'), 10, T0)).ok, true);
          assert.deepEqual(await storage.keys.createApiKey(newKey('u1'), 10, T0), {
            ok: false,
            reason: 'too_many_keys',
          });
          assert.equal((await storage.keys.listApiKeys('u1')).length, 10);
          assert.equal((await storage.keys.createApiKey(newKey('u2'), 10, T0)).ok, true);
        });
      });

      test('allows one more key after one is revoked', async () => {
        await withStore(async (storage) => {
          const ids: string[] = [];
          for (let i = 0; i < 10; i += 1) {
            const result = await storage.keys.createApiKey(newKey('u1'), 10, T0);
            if (result.ok) ids.push(result.key.id);
          }
          assert.equal((await storage.keys.createApiKey(newKey('u1'), 10, T0)).ok, false);
          await storage.keys.revokeApiKey(ids[3]!, T0 + 1);
          assert.equal((await storage.keys.createApiKey(newKey('u1'), 10, T0 + 2)).ok, true);
          assert.equal((await storage.keys.createApiKey(newKey('u1'), 10, T0 + 3)).ok, false);
        });
      });

      test('allows one more key once one has expired, and not before', async () => {
        await withStore(async (storage) => {
          await storage.keys.createApiKey(newKey('u1', T0 + 90_000), 10, T0);
          for (let i = 0; i < 9; i += 1) await storage.keys.createApiKey(newKey('u1'), 10, T0);
          assert.equal((await storage.keys.createApiKey(newKey('u1'), 10, T0 + 89_999)).ok, false);
          assert.equal((await storage.keys.createApiKey(newKey('u1'), 10, T0 + 90_000)).ok, true);
        });
      });

      test('revoking is idempotent and keeps the first revokedAt; an unknown key id gives nothing', async () => {
        await withStore(async (storage) => {
          const key = newKey('u1');
          await storage.keys.createApiKey(key, 10, T0);
          assert.equal((await storage.keys.revokeApiKey(key.id, T0 + 5))?.revokedAt, T0 + 5);
          assert.equal((await storage.keys.revokeApiKey(key.id, T0 + 9))?.revokedAt, T0 + 5);
          assert.equal((await storage.keys.findApiKeysByDigests([key.digest]))[0]?.revokedAt, T0 + 5);
          assert.equal(await storage.keys.revokeApiKey('key_unknown', T0), undefined);
        });
      });

      test('recording uses sets lastUsedAt and never moves it back', async () => {
        await withStore(async (storage) => {
          const key = newKey('u1');
          await storage.keys.createApiKey(key, 10, T0);
          await storage.quota.recordKeyUse({ lastUsed: new Map([[key.id, T0 + 100]]), requests: [] });
          await storage.quota.recordKeyUse({ lastUsed: new Map([[key.id, T0 + 50]]), requests: [] });
          assert.equal((await storage.keys.listApiKeys('u1'))[0]?.lastUsedAt, T0 + 100);
          await storage.quota.recordKeyUse({ lastUsed: new Map([['key_unknown', T0]]), requests: [] });
        });
      });
    });

    describe(`${backend.name} storage: opening and migrating`, () => {
      /** Opens (so migrates) the store in a process of its own; its stdout is the cursor secret in hex. */
      function runChild(location: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
        return new Promise((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', CHILD, location], {
            cwd: PROJECT_ROOT,
            env: cleanEnv(),
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (d: Buffer) => {
            stdout += d.toString();
          });
          child.stderr.on('data', (d: Buffer) => {
            stderr += d.toString();
          });
          child.on('error', reject);
          child.on('close', (code) => resolve({ code, stdout, stderr }));
        });
      }

      test('reopening a store keeps its data, applies each migration once and keeps the cursor secret', async () => {
        const { location, remove } = await backend.newLocation('reopen');
        try {
          const first = await openStorage(location);
          const secret = await first.settings.cursorSecret();
          assert.equal(secret.length, 32);
          await first.writes.upsertMeals('u1', [meal('a')], T0);
          await first.close();
          const migrations = await backend.appliedMigrations(location);
          assert.ok(migrations.length >= 1);

          for (let i = 0; i < 2; i += 1) {
            const again = await openStorage(location);
            assert.deepEqual(await again.settings.cursorSecret(), secret);
            assert.deepEqual(
              (await feedItems(again, { userId: 'u1' })).map((item) => item.id),
              ['a'],
            );
            await again.close();
          }
          assert.deepEqual(await backend.appliedMigrations(location), migrations);
        } finally {
          await remove();
        }
      });

      test('create: never refuses a store that does not exist and makes none; the default makes it', async () => {
        const { location, remove } = await backend.newLocation('never');
        try {
          await assert.rejects(openStorage(location, { create: 'never' }), (error: unknown) => {
            assert.ok(error instanceof AppError, String(error));
            assert.equal(error.code, 'unavailable');
            assert.match(error.message, /no store there/);
            return true;
          });
          await assert.rejects(backend.appliedMigrations(location), 'nothing was created');
          await (await openStorage(location)).close();
          const existing = await openStorage(location, { create: 'never' });
          await existing.close();
          assert.ok((await backend.appliedMigrations(location)).length >= 1);
        } finally {
          await remove();
        }
      });

      test('the app page origin: none on a new store, then the last one recorded, for every handle', async () => {
        await withStore(async (storage, location) => {
          assert.equal(await storage.settings.appPageOrigin(), undefined);
          await storage.settings.recordAppPageOrigin('https://127.0.0.1:8444');
          await storage.settings.recordAppPageOrigin('https://[::1]:40123');
          const second = await openStorage(location, { create: 'never' });
          try {
            assert.equal(await second.settings.appPageOrigin(), 'https://[::1]:40123');
            await second.settings.recordAppPageOrigin('https://meals.example.com');
            assert.equal(await storage.settings.appPageOrigin(), 'https://meals.example.com');
          } finally {
            await second.close();
          }
          assert.equal((await storage.settings.cursorSecret()).length, 32, 'the cursor secret is untouched');
        });
      });

      test('two handles open on one store at once share the data and the cursor secret', async () => {
        await withStore(async (storage, location) => {
          const second = await openStorage(location);
          try {
            assert.deepEqual(await second.settings.cursorSecret(), await storage.settings.cursorSecret());
            await storage.writes.upsertMeals('u1', [meal('a')], T0);
            await second.writes.upsertMeals('u1', [meal('b')], T0);
            assert.deepEqual(
              (await feedItems(second, { userId: 'u1' })).map((item) => [item.id, item.modifiedAt]),
              [
                ['a', at(T0)],
                ['b', at(T0 + 1)],
              ],
            );
          } finally {
            await second.close();
          }
        });
      });

      test('two stores have different cursor secrets', async () => {
        await withStore(async (a) => {
          await withStore(async (b) => {
            assert.notDeepEqual(await a.settings.cursorSecret(), await b.settings.cursorSecret());
          });
        });
      });

      test('four processes opening a new store at once all succeed and agree on one cursor secret', async () => {
        const { location, remove } = await backend.newLocation('concurrent');
        try {
          const results = await Promise.all(Array.from({ length: 4 }, () => runChild(location)));
          for (const result of results) assert.equal(result.code, 0, result.stderr);
          const secrets = new Set(results.map((result) => result.stdout));
          assert.equal(secrets.size, 1);
          const storage = await openStorage(location);
          try {
            assert.equal((await storage.settings.cursorSecret()).toString('hex'), [...secrets][0]);
          } finally {
            await storage.close();
          }
          const migrations = await backend.appliedMigrations(location);
          assert.deepEqual(migrations, [...new Set(migrations)]);
        } finally {
          await remove();
        }
      });
    });

    describe(`${backend.name} storage: concurrent instances`, () => {
      test('key creations for one user from two instances at once never exceed 10 active keys', async () => {
        await withStore(async (storage, location) => {
          const second = await openStorage(location);
          try {
            const attempts = Array.from({ length: 16 }, (_, i) => {
              const key = generateApiKey();
              const record: NewApiKey = {
                id: randomId('key'),
                userId: 'u1',
                name: `k${i}`,
                prefix: displayPrefix(key),
                digest: digestApiKey(key),
                createdAt: T0,
                expiresAt: null,
              };
              return (i % 2 === 0 ? storage : second).keys.createApiKey(record, 10, T0);
            });
            const results = await Promise.all(attempts);
            assert.equal(results.filter((result) => result.ok).length, 10);
            assert.equal((await storage.keys.listApiKeys('u1')).length, 10);
          } finally {
            await second.close();
          }
        });
      });

      test("a reader following one user's feed while two instances write sees every change exactly once", async () => {
        await withStore(async (storage, location) => {
          const second = await openStorage(location);
          try {
            const ids = Array.from({ length: 40 }, (_, i) => `c${i}`);
            let writing = true;
            const writes = Promise.all(
              ids.map((id, i) => (i % 2 === 0 ? storage : second).writes.upsertMeals('u1', [meal(id)], T0)),
            ).finally(() => {
              writing = false;
            });
            const seen: string[] = [];
            let after: FeedPosition | undefined;
            // Page until the writers are done and a page after that comes back empty.
            for (let done = false; !done;) {
              const finished = !writing;
              const page = await feed(storage, { userId: 'u1', after, limit: 3 });
              for (const text of itemTexts(page)) seen.push((JSON.parse(text) as FeedItem).id);
              after = page.last ?? after;
              done = finished && page.count === 0;
            }
            await writes;
            assert.deepEqual([...seen].sort(), [...ids].sort(), 'every change, none twice');
            const items = await feedItems(storage, { userId: 'u1' });
            const times = items.map((item) => Date.parse(item.modifiedAt));
            assert.equal(new Set(times).size, ids.length, 'one modifiedAt per change');
          } finally {
            await second.close();
          }
        });
      });
    });
  });
}
