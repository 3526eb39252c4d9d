import assert from 'node:assert/strict';
import { runSharedSuite } from '../support/shared-suite.js';
import { MEAL_FIELDS } from '../../src/domain/meal.js';
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
 * user's next clock value in input order, an id of another user writes nothing, and a deleted
 * meal comes back. What counts as a change is meal-changes.suite.ts's.
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
