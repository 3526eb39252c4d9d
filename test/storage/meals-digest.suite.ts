import assert from 'node:assert/strict';
import type { MealContent } from '../../src/domain/meal.js';
import { createSeededRandom, hashSeed } from '../../src/domain/seeded-random.js';
import { runSharedSuite } from '../support/shared-suite.js';
import { assertLiveDigest, expectedTerm, shown } from '../support/live-digest.js';
import { DAY_MS, feed, meal, type StoreSuiteOptions, T0, withStore } from '../support/store-fixtures.js';

const USER = 'u1';
const OTHER = 'u2';
/** Past the SQLite appender's many-row statement (50 rows), so both of its statements run. */
const MANY = 120;

async function* batches(...list: MealContent[][]): AsyncGenerator<MealContent[]> {
  for (const batch of list) yield batch;
}

const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
const meals = (list: readonly string[]) => list.map((id) => meal(id));

/**
 * The digest of each user's live meals (FeedPage.liveDigest), the same on every backend: after
 * every kind of write it equals the digest computed here from the live meals a full read of
 * the feed lists, on every page of the user; a write that changes nothing leaves it as it was.
 */
export function runMealsDigestSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, "storage: the digest of a user's live meals", ({ test }) => {
    test("a meal's term is the first 16 bytes of SHA-256 over the UTF-8 of its id, a line feed and its modifiedAt", () => {
      // Values from `printf 'a\n2025-06-10T12:00:00.000Z' | sha256sum`: the computation this
      // suite checks the stores against is itself checked against a tool outside Node.
      assert.equal(expectedTerm('a', '2025-06-10T12:00:00.000Z'), 0x3bb3623069be281e5789fc7d97154af3n);
      assert.equal(expectedTerm('é', '2025-06-10T12:00:00.000Z'), 0x3895df6152d280077a1b1fb02f94eb77n);
      return Promise.resolve();
    });

    test('a user without meals has the digest count 0, sum 0, whether they never wrote or deleted them all', async () => {
      await withStore(options, async (storage) => {
        assert.equal(shown((await feed(storage, { userId: USER })).liveDigest), shown({ count: 0, sum: 0n }));
        await storage.writes.upsertMeals(USER, meals(['a', 'b']), T0);
        await storage.writes.deleteMeal(USER, 'a', T0);
        await storage.writes.deleteMeal(USER, 'b', T0);
        assert.equal(shown(await assertLiveDigest(storage, USER)), shown({ count: 0, sum: 0n }));
      });
    });

    test("a meal's term is in the stores' digest: one meal written at a known instant", async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(USER, [meal('a')], T0);
        const page = await feed(storage, { userId: USER });
        assert.equal(shown(page.liveDigest), shown({ count: 1, sum: 0x3bb3623069be281e5789fc7d97154af3n }));
      });
    });

    test('creates by upsert add their terms, one call after another', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(USER, meals(ids('u', 5)), T0);
        assert.equal((await assertLiveDigest(storage, USER)).count, 5);
        await storage.writes.upsertMeals(USER, meals(ids('v', MANY)), T0 + 10);
        assert.equal((await assertLiveDigest(storage, USER)).count, 5 + MANY);
      });
    });

    test("a user's first import, appended without look-ups over two batches, adds every meal's term", async () => {
      await withStore(options, async (storage) => {
        const result = await storage.writes.importMeals(USER, batches(meals(ids('a', MANY)), meals(ids('b', 7))), T0);
        assert.deepEqual(result, { ok: true, created: MANY + 7, updated: 0, unchanged: 0, stale: 0 });
        assert.equal((await assertLiveDigest(storage, USER)).count, MANY + 7);
      });
    });

    test('a later import, which looks each id up, adds the new meals and moves the changed ones', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(USER, meals(['kept', 'changed']), T0);
        const result = await storage.writes.importMeals(
          USER,
          batches(meals(ids('n', 60)), [meal('changed', { title: 'new title' }), meal('kept')]),
          T0 + 10,
        );
        assert.deepEqual(result, { ok: true, created: 60, updated: 1, unchanged: 1, stale: 0 });
        assert.equal((await assertLiveDigest(storage, USER)).count, 62);
      });
    });

    test('a first import that repeats an id within a batch and across batches counts the meal once, at its last modifiedAt', async () => {
      await withStore(options, async (storage) => {
        // The first batch is appended; the second's repeats make the append fail and the batch
        // is written again by looking each id up.
        const result = await storage.writes.importMeals(
          USER,
          batches(
            [meal('a'), meal('b')],
            [meal('c'), meal('c', { title: 'twice' }), meal('a', { title: 'again' })],
            [meal('b', { title: 'again' }), meal('d'), meal('d', { title: 'twice' })],
          ),
          T0,
        );
        assert.deepEqual(result, { ok: true, created: 4, updated: 4, unchanged: 0, stale: 0 });
        assert.equal((await assertLiveDigest(storage, USER)).count, 4);
      });
    });

    test('a later import that repeats an id within a batch and across batches counts the meal once, at its last modifiedAt', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(USER, meals(['old', 'gone']), T0);
        await storage.writes.deleteMeal(USER, 'gone', T0);
        const result = await storage.writes.importMeals(
          USER,
          batches(
            [meal('x'), meal('x', { title: 'twice' }), meal('old', { title: 'changed' }), meal('old')],
            [meal('x', { title: 'thrice' }), meal('gone'), meal('gone', { title: 'back, changed' })],
          ),
          T0 + 10,
        );
        assert.deepEqual(result, { ok: true, created: 1, updated: 6, unchanged: 0, stale: 0 });
        assert.equal((await assertLiveDigest(storage, USER)).count, 3);
      });
    });

    test("a change takes the meal's old term out and puts its new one in", async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(USER, meals(['a', 'b', 'c']), T0);
        const before = await assertLiveDigest(storage, USER);
        await storage.writes.upsertMeals(USER, [meal('b', { title: 'changed' })], T0 + 10);
        const after = await assertLiveDigest(storage, USER);
        assert.equal(after.count, 3);
        const moved = (after.sum - before.sum + (1n << 128n)) % (1n << 128n);
        const old = expectedTerm('b', new Date(T0 + 1).toISOString());
        const now = expectedTerm('b', new Date(T0 + 10).toISOString());
        assert.equal(moved, (now - old + (1n << 128n)) % (1n << 128n), 'the sum moved by the new term less the old');
      });
    });

    test("a delete takes the meal's term out; deleting it again, or an unknown id, moves nothing", async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(USER, meals(['a', 'b', 'c']), T0);
        assert.equal(await storage.writes.deleteMeal(USER, 'b', T0 + 10), 'deleted');
        const afterDelete = await assertLiveDigest(storage, USER);
        assert.equal(afterDelete.count, 2);
        assert.equal(await storage.writes.deleteMeal(USER, 'b', T0 + 20), 'already_deleted');
        assert.equal(await storage.writes.deleteMeal(USER, 'nope', T0 + 20), 'not_found');
        assert.equal(shown(await assertLiveDigest(storage, USER)), shown(afterDelete));
      });
    });

    test('a meal brought back after its deletion counts again, at its new modifiedAt', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(USER, meals(['a', 'b']), T0);
        await storage.writes.deleteMeal(USER, 'a', T0 + 10);
        await storage.writes.upsertMeals(USER, [meal('a')], T0 + 20);
        assert.equal((await assertLiveDigest(storage, USER)).count, 2);
        await storage.writes.deleteMeal(USER, 'a', T0 + 30);
        await storage.writes.importMeals(USER, batches([meal('a', { title: 'back by import' })]), T0 + 40);
        assert.equal((await assertLiveDigest(storage, USER)).count, 2);
      });
    });

    test('records equal to the live meals, upserted or imported again, leave the digest as it was', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.importMeals(USER, batches(meals(ids('m', 10))), T0);
        const before = await assertLiveDigest(storage, USER);
        const again = await storage.writes.importMeals(USER, batches(meals(ids('m', 5)), meals(ids('m', 10))), T0 + 10);
        assert.deepEqual(again, { ok: true, created: 0, updated: 0, unchanged: 15, stale: 0 });
        await storage.writes.upsertMeals(USER, meals(ids('m', 3)), T0 + 20);
        assert.equal(shown(await assertLiveDigest(storage, USER)), shown(before));
      });
    });

    test('an import whose batches throw after the first one is rolled back and leaves the digest as it was', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(USER, meals(['kept', 'gone']), T0);
        await storage.writes.deleteMeal(USER, 'gone', T0);
        const before = await assertLiveDigest(storage, USER);
        const bad = new Error('a bad record in the second batch');
        async function* failing(): AsyncGenerator<MealContent[]> {
          yield [meal('new'), meal('kept', { title: 'changed' }), meal('gone')];
          throw bad;
        }
        await assert.rejects(storage.writes.importMeals(USER, failing(), T0 + 10), (error) => error === bad);
        assert.equal(shown(await assertLiveDigest(storage, USER)), shown(before));
        // A user's first import, appended, rolled back likewise: the user has no meals after it.
        async function* failingFirst(): AsyncGenerator<MealContent[]> {
          yield meals(ids('f', MANY));
          throw bad;
        }
        await assert.rejects(storage.writes.importMeals('fresh', failingFirst(), T0 + 10), (error) => error === bad);
        assert.equal(shown(await assertLiveDigest(storage, 'fresh')), shown({ count: 0, sum: 0n }));
      });
    });

    test("a write naming another user's meal writes nothing and moves neither user's digest", async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(USER, meals(['mine']), T0);
        await storage.writes.upsertMeals(OTHER, meals(['theirs']), T0);
        const mine = await assertLiveDigest(storage, USER);
        const theirs = await assertLiveDigest(storage, OTHER);
        const foreign = { ok: false, reason: 'foreign_id', index: 1 };
        assert.deepEqual(await storage.writes.upsertMeals(USER, [meal('n1'), meal('theirs')], T0 + 10), foreign);
        assert.deepEqual(
          await storage.writes.importMeals(USER, batches([meal('n2')], [meal('theirs')]), T0 + 10),
          foreign,
        );
        assert.equal(await storage.writes.deleteMeal(USER, 'theirs', T0 + 10), 'not_found');
        // The other user's first write, appended, meets this user's id.
        assert.deepEqual(await storage.writes.importMeals('u3', batches([meal('x'), meal('mine')]), T0 + 10), foreign);
        assert.equal(shown(await assertLiveDigest(storage, USER)), shown(mine));
        assert.equal(shown(await assertLiveDigest(storage, OTHER)), shown(theirs));
        assert.equal(shown(await assertLiveDigest(storage, 'u3')), shown({ count: 0, sum: 0n }));
      });
    });

    test('pruning tombstones leaves the digest as it was', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(USER, meals(['a', 'b', 'c']), T0 - 40 * DAY_MS);
        await storage.writes.deleteMeal(USER, 'a', T0 - 40 * DAY_MS);
        await storage.writes.deleteMeal(USER, 'b', T0);
        const before = await assertLiveDigest(storage, USER);
        assert.equal(await storage.writes.pruneTombstones(T0 - 30 * DAY_MS), 1);
        assert.equal(shown(await assertLiveDigest(storage, USER)), shown(before));
      });
    });

    test("another user's writes of every kind leave this user's digest as it was", async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(USER, meals(['a', 'b']), T0);
        const before = await assertLiveDigest(storage, USER);
        await storage.writes.importMeals(OTHER, batches(meals(ids('o', MANY))), T0);
        await storage.writes.upsertMeals(OTHER, [meal('o1', { title: 'changed' }), meal('p')], T0 + 10);
        await storage.writes.deleteMeal(OTHER, 'o2', T0 + 20);
        await storage.writes.importMeals(OTHER, batches([meal('o2')], [meal('o3', { title: 'changed' })]), T0 + 30);
        assert.equal(shown(await assertLiveDigest(storage, USER)), shown(before));
        assert.equal((await assertLiveDigest(storage, OTHER)).count, MANY + 1);
      });
    });

    test("saves of one meal (the host API's PUT) move the digest as upserts do: created, changed, unchanged, back", async () => {
      await withStore(options, async (storage) => {
        const save = (id: string, fields: Partial<MealContent> = {}, now = T0) =>
          storage.writes.saveMeal(USER, meal(id, fields), now);
        assert.deepEqual(await save('a'), { ok: true, outcome: 'created', modifiedAt: T0 });
        const first = await feed(storage, { userId: USER });
        assert.equal(shown(first.liveDigest), shown({ count: 1, sum: 0x3bb3623069be281e5789fc7d97154af3n }));
        await save('🍕');
        await save('a', { title: 'changed' }, T0 + 10);
        assert.deepEqual(await save('a', { title: 'changed' }, T0 + 20), {
          ok: true,
          outcome: 'unchanged',
          modifiedAt: T0 + 10,
        });
        const unchanged = await assertLiveDigest(storage, USER);
        assert.equal(unchanged.count, 2);
        await storage.writes.deleteMeal(USER, '🍕', T0 + 30);
        assert.equal((await assertLiveDigest(storage, USER)).count, 1);
        assert.deepEqual(await save('🍕', {}, T0 + 40), { ok: true, outcome: 'updated', modifiedAt: T0 + 40 });
        assert.equal((await assertLiveDigest(storage, USER)).count, 2);
      });
    });

    test('a long run of single saves and deletes, some at the same now, keeps the digest of the live meals', async () => {
      await withStore(options, async (storage) => {
        const random = createSeededRandom(hashSeed('single writes'));
        const pool = ['a', 'b', 'é', '🍕', '寿司', 'ü\u0301', ...ids('m', 10)];
        const titles = ['one', 'two'];
        for (let i = 0; i < 300; i += 1) {
          const id = random.pick(pool);
          // Some writes share a now: the clock then steps by 1 ms past its last value.
          const now = T0 + Math.floor(i / 3) * 7;
          if (random.chance(0.25)) await storage.writes.deleteMeal(USER, id, now);
          else await storage.writes.saveMeal(USER, meal(id, { title: random.pick(titles) }), now);
          if (i % 100 === 99) await assertLiveDigest(storage, USER);
        }
      });
    });

    test('ids with characters beyond ASCII are hashed as their UTF-8 bytes, on every write path', async () => {
      await withStore(options, async (storage) => {
        const wide = ['é', 'café-au-lait', '🍕', 'pizza 🍕🍕', '寿司', 'ラーメン-1', 'ü\u0301', '\u{10FFFF}'];
        // The first meal alone, its digest known in advance: é imported first, at T0.
        await storage.writes.importMeals(USER, batches([meal('é')]), T0);
        const first = await feed(storage, { userId: USER });
        assert.equal(shown(first.liveDigest), shown({ count: 1, sum: 0x3895df6152d280077a1b1fb02f94eb77n }));
        await storage.writes.importMeals(USER, batches(meals(wide.slice(1, 4))), T0);
        await storage.writes.upsertMeals(USER, meals(wide.slice(4)), T0);
        assert.equal((await assertLiveDigest(storage, USER)).count, wide.length);
        await storage.writes.upsertMeals(USER, [meal('🍕', { title: 'changed' })], T0 + 10);
        await storage.writes.deleteMeal(USER, '寿司', T0 + 20);
        await storage.writes.importMeals(USER, batches([meal('é', { title: 'changed' }), meal('寿司')]), T0 + 30);
        const digest = await assertLiveDigest(storage, USER);
        assert.equal(digest.count, wide.length);
      });
    });
  });
}
