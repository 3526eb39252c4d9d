import assert from 'node:assert/strict';
import { runSharedSuite } from '../support/shared-suite.js';
import { MEAL_FIELDS, type MealContent } from '../../src/domain/meal.js';
import {
  at,
  DAY_MS,
  feed,
  feedItems,
  itemTexts,
  meal,
  type StoreSuiteOptions,
  T0,
  withStore,
} from '../support/store-fixtures.js';

/**
 * upsertMeals (storage/meal-writes.ts), the same on every backend: each change takes the
 * user's next clock value in input order, a meal equal to the live one is no change, and an id
 * of another user writes nothing.
 */
export function runMealUpsertsSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: meal upserts', ({ test }) => {
    test('an upsert creates meals with strictly increasing modifiedAt in input order', async () => {
      await withStore(options, async (storage) => {
        assert.deepEqual(await storage.writes.upsertMeals('u1', [meal('a'), meal('b'), meal('c')], T0), {
          ok: true,
          created: 3,
          updated: 0,
          unchanged: 0,
          stale: 0,
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
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals('u1', [meal('a'), meal('b'), meal('c')], T0);
        assert.deepEqual(
          await storage.writes.upsertMeals('u1', [meal('a', { title: 'renamed', caloriesTotal: null })], T0),
          {
            ok: true,
            created: 0,
            updated: 1,
            unchanged: 0,
            stale: 0,
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
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        await storage.writes.upsertMeals('u1', [meal('b')], T0 + 60_000);
        await storage.writes.upsertMeals('u1', [meal('c')], T0 - DAY_MS);
        assert.equal(await storage.writes.deleteMeal('u1', 'a', T0 - DAY_MS), 'deleted');
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
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage) => {
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

    test("another user's deleted meal id is still theirs: an upsert of it is refused", async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        await storage.writes.deleteMeal('u1', 'a', T0);
        assert.deepEqual(await storage.writes.upsertMeals('u2', [meal('a')], T0), {
          ok: false,
          reason: 'foreign_id',
          index: 0,
        });
      });
    });

    test('a deleted meal comes back to life on upsert, as a new change at the end of the feed', async () => {
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage) => {
        assert.deepEqual(
          await storage.writes.upsertMeals('u1', [meal('a', { title: 'one' }), meal('a', { title: 'two' })], T0),
          {
            ok: true,
            created: 1,
            updated: 1,
            unchanged: 0,
            stale: 0,
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
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals('u1', [meal('a'), meal('b'), meal('c')], T0);
        await storage.writes.deleteMeal('u1', 'c', T0);
        const before = await feed(storage, { userId: 'u1', includeDeleted: true });
        assert.deepEqual(await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0 + 60_000), {
          ok: true,
          created: 0,
          updated: 0,
          unchanged: 2,
          stale: 0,
        });
        assert.deepEqual(await feed(storage, { userId: 'u1', includeDeleted: true }), before);
        // The clock did not move: a later change behind the wall clock gets the old last + 1 ms,
        // and one ahead of it gets the wall clock.
        await storage.writes.upsertMeals('u1', [meal('a', { title: 'changed' })], T0);
        await storage.writes.upsertMeals('u1', [meal('b', { title: 'changed' })], T0 + 5000);
        assert.deepEqual(
          (await feedItems(storage, { userId: 'u1', includeDeleted: true })).map((item) => [item.id, item.modifiedAt]),
          [
            ['c', at(T0 + 3)],
            ['a', at(T0 + 4)],
            ['b', at(T0 + 5000)],
          ],
        );
      });
    });

    test('in a mixed upsert only the changed and new meals take clock values, one after the other', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
        assert.deepEqual(
          await storage.writes.upsertMeals(
            'u1',
            [meal('a'), meal('b', { title: 'changed' }), meal('a'), meal('d')],
            T0,
          ),
          { ok: true, created: 1, updated: 1, unchanged: 2, stale: 0 },
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
      await withStore(options, async (storage) => {
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
          assert.deepEqual(
            result,
            { ok: true, created: 0, updated: 1, unchanged: 0, stale: 0 },
            JSON.stringify(change),
          );
          const last = (await feedItems(storage, { userId: 'u1' })).at(-1);
          assert.deepEqual([last?.id, last?.modifiedAt], [id, at(T0 + changes.length + i)]);
        }
      });
    });

    test('a deleted meal upserted again with the same fields comes back to life: an update, not unchanged', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
        await storage.writes.deleteMeal('u1', 'a', T0);
        assert.deepEqual(await storage.writes.upsertMeals('u1', [meal('a')], T0), {
          ok: true,
          created: 0,
          updated: 1,
          unchanged: 0,
          stale: 0,
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
      await withStore(options, async (storage) => {
        // A new user (SQLite's append-only first write falls back to looking ids up).
        assert.deepEqual(await storage.writes.upsertMeals('u1', [meal('a'), meal('b'), meal('a')], T0), {
          ok: true,
          created: 2,
          updated: 0,
          unchanged: 1,
          stale: 0,
        });
        // A user with meals: the first record changes a, the second equals that change.
        const changed = meal('a', { title: 'changed' });
        assert.deepEqual(await storage.writes.upsertMeals('u1', [changed, changed], T0), {
          ok: true,
          created: 0,
          updated: 1,
          unchanged: 1,
          stale: 0,
        });
        // Each record meets the version the one before it wrote, not the stored one: back to
        // the stored fields after a change is a second change.
        assert.deepEqual(await storage.writes.upsertMeals('u1', [meal('b', { title: 'x' }), meal('b')], T0), {
          ok: true,
          created: 0,
          updated: 2,
          unchanged: 0,
          stale: 0,
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
      await withStore(options, async (storage) => {
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
}
