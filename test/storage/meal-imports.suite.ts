import assert from 'node:assert/strict';
import { runSharedSuite } from '../support/shared-suite.js';
import { openStorage } from '../../src/storage/open-storage.js';
import {
  at,
  feed,
  feedItems,
  itemTexts,
  meal,
  type StoreSuiteOptions,
  T0,
  withStore,
} from '../support/store-fixtures.js';

/**
 * importMeals (storage/meal-writes.ts), the same on every backend: every batch in one
 * transaction, rolled back whole when a batch fails or names another user's meal, and no lock
 * taken before the first batch comes.
 */
export function runMealImportsSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: meal imports', ({ test }) => {
    test('an import takes its batches in one transaction: modifiedAt increases across them and an id repeated in a later batch is an update', async () => {
      await withStore(options, async (storage) => {
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
          stale: 0,
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
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage, location) => {
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
          assert.deepEqual(await Promise.race([written, waited]), {
            ok: true,
            created: 1,
            updated: 0,
            unchanged: 0,
            stale: 0,
          });
          begin();
          assert.deepEqual(await importing, { ok: true, created: 1, updated: 0, unchanged: 0, stale: 0 });
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
  });
}
