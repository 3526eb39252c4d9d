import assert from 'node:assert/strict';
import { runSharedSuite } from '../support/shared-suite.js';
import type { MealContent } from '../../src/domain/meal.js';
import { at, feed, feedItems, meal, type StoreSuiteOptions, T0, withStore } from '../support/store-fixtures.js';

/**
 * What upsertMeals (storage/meal-writes.ts) counts as a change, the same on every backend: a
 * meal equal to the live one is unchanged and takes no clock value, any one field differing is
 * an update, a deleted meal written again is one, and each record of a call meets what the one
 * before it wrote.
 */
export function runMealChangesSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: what an upsert counts as a change', ({ test }) => {
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
  });
}
