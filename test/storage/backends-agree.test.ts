import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { feedStart } from '../../src/domain/feed-start.js';
import type { FeedPosition, MealContent } from '../../src/domain/meal.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { FeedPage } from '../../src/storage/meal-feed.js';
import type { Storage } from '../../src/storage/storage.js';
import { newPostgresSchema, postgresSkipReason, type TestPostgresStore } from '../support/postgres.js';
import { makeTempDir } from '../support/project.js';

// The same writes on SQLite and on PostgreSQL give byte-identical pages: the API answers the
// same bytes whichever backend a deployment runs on.
const skip = await postgresSkipReason();
const T0 = Date.UTC(2025, 5, 10, 12);
const temp = makeTempDir('agree');
let sqlite: Storage;
let pg: Storage;
let pgStore: TestPostgresStore;

// Ids whose UTF-8 byte order differs from JavaScript's UTF-16 order and from a linguistic one.
const IDS = ['Zebra', 'apple', 'élan', 'z', '\uff5e', '\u{1f600}', 'a"quote', 'back\\slash', '10', '9'];

function meal(id: string, n: number): MealContent {
  return {
    id,
    description: n % 3 === 0 ? '' : `line one\nline "two" ${id} \u2014 ünïcödé`,
    title: `meal ${n}`,
    type: (['breakfast', 'lunch', 'dinner', 'snack'] as const)[n % 4] ?? 'lunch',
    date: T0 - n * 3_600_000 + 123,
    utcOffset: '+01:00',
    caloriesTotal: n % 2 === 0 ? 400.5 + n : null,
    proteins_g: 0.1 + 0.2,
    fats_g: 1e-7,
    carbs_g: 1e21,
    fibers_g: n,
    sodium_mg: -0,
    iron_mg: null,
    calcium_mg: 123456.789,
  };
}

before(async () => {
  if (skip !== undefined) return;
  pgStore = await newPostgresSchema('agree');
  [sqlite, pg] = await Promise.all([openStorage(path.join(temp.dir, 'agree.db')), openStorage(pgStore.url)]);
  for (const storage of [sqlite, pg]) {
    // Every id of one import at the same instant (one per ms), then a second user, updates,
    // deletes, a revival and a prune: each backend gets exactly the same calls.
    await storage.writes.upsertMeals('u1', IDS.map(meal), T0);
    await storage.writes.upsertMeals('u2', [meal('other', 1)], T0);
    await storage.writes.upsertMeals('u1', [meal('apple', 20), meal('z', 21)], T0 + 5);
    await storage.writes.deleteMeal('u1', 'élan', T0 + 6);
    await storage.writes.deleteMeal('u1', '9', T0 + 6);
    await storage.writes.deleteMeal('u1', 'Zebra', T0 + 10_000);
    await storage.writes.upsertMeals('u1', [meal('9', 30)], T0 + 10_001);
    await storage.writes.pruneTombstones(T0 + 1000);
  }
});

after(async () => {
  if (skip !== undefined) return;
  await Promise.all([sqlite.close(), pg.close()]);
  await pgStore.remove();
  temp.remove();
});

async function pages(storage: Storage, includeDeleted: boolean, limit: number): Promise<FeedPage[]> {
  const out: FeedPage[] = [];
  let after: FeedPosition | undefined;
  for (;;) {
    const page = await storage.feed.listFeed({ userId: 'u1', start: feedStart(0, after), includeDeleted, limit });
    out.push(page);
    if (!page.hasMore || page.last === undefined) return out;
    after = page.last;
  }
}

test(
  'SQLite and PostgreSQL answer byte-identical pages, positions and watermarks for the same writes',
  { skip: skip ?? false },
  async () => {
    for (const includeDeleted of [false, true]) {
      for (const limit of [1, 3, 5000]) {
        const [a, b] = await Promise.all([pages(sqlite, includeDeleted, limit), pages(pg, includeDeleted, limit)]);
        const label = `includeDeleted=${includeDeleted} limit=${limit}`;
        assert.equal(a.length, b.length, label);
        a.forEach((page, i) => {
          assert.equal(page.items.toString('utf8'), b[i]?.items.toString('utf8'), `${label} page ${i}`);
          assert.ok(page.items.equals(b[i]?.items ?? Buffer.alloc(0)), `${label} page ${i}: the same bytes`);
          assert.deepEqual({ ...page, items: null }, { ...b[i], items: null }, `${label} page ${i}: the same envelope`);
        });
      }
    }
    const sqliteFull = (await pages(sqlite, true, 5000))[0];
    assert.ok(sqliteFull !== undefined && sqliteFull.prunedThrough !== undefined, 'the scenario pruned a tombstone');
  },
);

test('a position compares ids by UTF-8 bytes on both, not by UTF-16 units', { skip: skip ?? false }, async () => {
  const all = (await pages(sqlite, false, 5000))[0];
  const items = JSON.parse(`[${all?.items.toString('utf8') ?? ''}]`) as { id: string; modifiedAt: string }[];
  const emoji = items.find((item) => item.id === '\u{1f600}');
  assert.ok(emoji !== undefined);
  // At the emoji's instant, U+FF5E (bytes EF…) is before U+1F600 (F0…): the emoji comes after
  // this position. JavaScript's < would say the opposite (0xD83D < 0xFF5E).
  const position = { modifiedAt: Date.parse(emoji.modifiedAt), id: '\uff5e' };
  for (const storage of [sqlite, pg]) {
    const page = await storage.feed.listFeed({
      userId: 'u1',
      start: feedStart(0, position),
      includeDeleted: false,
      limit: 1,
    });
    assert.equal(
      (JSON.parse(`[${page.items.toString('utf8')}]`) as { id: string }[])[0]?.id,
      '\u{1f600}',
      storage.kind,
    );
  }
});

test('exports agree too', { skip: skip ?? false }, async () => {
  const collect = async (storage: Storage) => {
    const meals = [];
    for await (const meal of storage.feed.exportMeals('u1', 0)) meals.push(meal);
    return meals;
  };
  const [a, b] = await Promise.all([collect(sqlite), collect(pg)]);
  assert.deepEqual(a, b);
  assert.ok(a.length > 5);
});
