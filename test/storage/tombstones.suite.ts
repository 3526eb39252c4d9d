import assert from 'node:assert/strict';
import { runSharedSuite } from '../support/shared-suite.js';
import type { Storage } from '../../src/storage/storage.js';
import { pruneInPieces } from '../../src/storage/tombstone-pieces.js';
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
 * deleteMeal and pruneTombstones (storage/meal-writes.ts), the same on every backend: a deletion
 * is a change that leaves a tombstone, a second one is none, and pruning moves each user's
 * watermark forward only.
 */
export function runTombstonesSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: deletions and tombstone pruning', ({ test }) => {
    test('deleting a meal leaves a tombstone of exactly id, modifiedAt and deleted true, as a new change', async () => {
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        const before = await feed(storage, { userId: 'u1', includeDeleted: true });
        assert.equal(await storage.writes.deleteMeal('u1', 'nope', T0), 'not_found');
        assert.equal(await storage.writes.deleteMeal('u2', 'a', T0), 'not_found');
        assert.deepEqual(await feed(storage, { userId: 'u1', includeDeleted: true }), before);
        assert.deepEqual(itemTexts(await feed(storage, { userId: 'u2', includeDeleted: true })), []);
      });
    });

    const prunedThrough = async (storage: Storage, userId: string, includeDeleted = true) =>
      (await feed(storage, { userId, includeDeleted, from: T0 + 1000 })).prunedThrough;

    test('removes only tombstones older than the bound, never live meals, and the clock never goes back', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals('u1', [meal('old-live'), meal('old-dead')], T0 - 40 * DAY_MS);
        await storage.writes.deleteMeal('u1', 'old-dead', T0 - 40 * DAY_MS);
        await storage.writes.upsertMeals('u1', [meal('new-dead')], T0);
        await storage.writes.deleteMeal('u1', 'new-dead', T0);
        await storage.writes.upsertMeals('u2', [meal('other-dead')], T0 - 40 * DAY_MS);
        await storage.writes.deleteMeal('u2', 'other-dead', T0 - 40 * DAY_MS);

        assert.equal(await storage.writes.pruneTombstones(T0 - 30 * DAY_MS), 2);
        assert.deepEqual(
          (await feedItems(storage, { userId: 'u1', includeDeleted: true })).map((item) => [item.id, item.deleted]),
          [
            ['old-live', false],
            ['new-dead', true],
          ],
        );
        assert.deepEqual(itemTexts(await feed(storage, { userId: 'u2', includeDeleted: true })), []);
        assert.equal(await storage.writes.pruneTombstones(T0 - 30 * DAY_MS), 0);

        await storage.writes.upsertMeals('u2', [meal('u2-next')], T0 - 50 * DAY_MS);
        assert.equal((await feedItems(storage, { userId: 'u2' }))[0]?.modifiedAt, at(T0 - 40 * DAY_MS + 2));
      });
    });

    test('a tombstone exactly at the bound is kept', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals('u1', [meal('a')], T0 - 1);
        await storage.writes.deleteMeal('u1', 'a', T0);
        assert.equal(await storage.writes.pruneTombstones(T0), 0);
        assert.equal(await storage.writes.pruneTombstones(T0 + 1), 1);
      });
    });

    test("each user's page reports the newest tombstone pruned for that user, only with includeDeleted", async () => {
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
        await storage.writes.deleteMeal('u1', 'a', T0); // T0+2
        assert.equal(await storage.writes.pruneTombstones(T0 + 100), 1);
        await storage.writes.deleteMeal('u1', 'b', T0 + 200);
        assert.equal(await storage.writes.pruneTombstones(T0 + 100), 0, 'the newer tombstone is inside the retention');
        assert.deepEqual(await prunedThrough(storage, 'u1'), { modifiedAt: T0 + 2, id: 'a' });
        await storage.writes.upsertMeals('u1', [meal('a')], T0 + 300);
        assert.equal(await storage.writes.pruneTombstones(T0 + 1000), 1);
        assert.deepEqual(await prunedThrough(storage, 'u1'), { modifiedAt: T0 + 200, id: 'b' });
        assert.equal(await storage.writes.pruneTombstones(T0 + 5000), 0);
        assert.deepEqual(await prunedThrough(storage, 'u1'), { modifiedAt: T0 + 200, id: 'b' });
      });
    });

    test('a prune in pieces takes the oldest first, each piece with its last instant’s ties, and ends where one prune would', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals('u1', [meal('a'), meal('b'), meal('c'), meal('d')], T0); // T0..T0+3
        for (const id of ['a', 'b', 'c']) await storage.writes.deleteMeal('u1', id, T0); // T0+4, +5, +6
        await storage.writes.upsertMeals('u2', [meal('x'), meal('y')], T0); // T0, T0+1
        await storage.writes.deleteMeal('u2', 'x', T0 + 3); // T0+3
        await storage.writes.deleteMeal('u2', 'y', T0 + 3); // T0+4, the instant of u1's a
        await storage.writes.deleteMeal('u1', 'd', T0 + 200); // past the bound

        // The oldest, x at T0+3, alone; then T0+4's a and y together, a piece of 1 with its tie.
        assert.equal(await storage.writes.pruneTombstones(T0 + 100, 1), 1);
        assert.equal(await prunedThrough(storage, 'u1'), undefined);
        assert.deepEqual(await prunedThrough(storage, 'u2'), { modifiedAt: T0 + 3, id: 'x' });
        assert.equal(await storage.writes.pruneTombstones(T0 + 100, 1), 2);
        assert.deepEqual(await prunedThrough(storage, 'u1'), { modifiedAt: T0 + 4, id: 'a' });
        assert.deepEqual(await prunedThrough(storage, 'u2'), { modifiedAt: T0 + 4, id: 'y' });
        // The rest, b and c, a piece of 2 and an empty one; d stays.
        assert.equal(await pruneInPieces(storage.writes, T0 + 100, { piece: 2 }), 2);
        assert.deepEqual(await prunedThrough(storage, 'u1'), { modifiedAt: T0 + 6, id: 'c' });
        assert.deepEqual(
          (await feedItems(storage, { userId: 'u1', includeDeleted: true })).map((item) => item.id),
          ['d'],
        );
        assert.equal(await pruneInPieces(storage.writes, T0 + 100), 0);
      });
    });

    test('the watermark survives closing and reopening the store', async () => {
      const store = await options.open('reopen');
      try {
        const first = store.storage;
        await first.writes.upsertMeals('u1', [meal('a')], T0);
        await first.writes.deleteMeal('u1', 'a', T0);
        await first.writes.pruneTombstones(T0 + 100);
        const again = await store.reopen();
        assert.deepEqual(await prunedThrough(again, 'u1'), { modifiedAt: T0 + 1, id: 'a' });
      } finally {
        await store.dispose();
      }
    });
  });
}
