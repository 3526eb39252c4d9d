import assert from 'node:assert/strict';
import type { MealContent, MealSave } from '../../src/domain/meal.js';
import type { Storage } from '../../src/storage/storage.js';
import { runSharedSuite } from '../support/shared-suite.js';
import { feed, feedItems, meal, type StoreSuiteOptions, T0, withStore } from '../support/store-fixtures.js';

const USER = 'u1';
const OTHER = 'u2';

/** A save of `id` carrying `sourceVersion`. */
export function versioned(id: string, sourceVersion: number, fields: Partial<MealContent> = {}): MealSave {
  return { ...meal(id, fields), sourceVersion };
}

/** The version the store holds for the user's meal (null: none given; undefined: no such meal). */
export async function versionOf(storage: Storage, id: string, userId = USER): Promise<number | null | undefined> {
  return (await storage.feed.getMeal(userId, id))?.sourceVersion;
}

async function titleOf(storage: Storage, id: string): Promise<unknown> {
  const found = await storage.feed.getMeal(USER, id);
  return found === undefined ? undefined : (JSON.parse(found.item) as { title?: unknown }).title;
}

const counts = (fields: Partial<Record<'created' | 'updated' | 'unchanged' | 'stale', number>>) => ({
  ok: true,
  created: 0,
  updated: 0,
  unchanged: 0,
  stale: 0,
  ...fields,
});

async function* batches(...list: MealSave[][]): AsyncGenerator<MealSave[]> {
  for (const batch of list) yield batch;
}

/**
 * Saves carrying a sourceVersion (domain/source-version.ts), the same on every backend: the
 * store keeps the newest per meal, live or tombstone, and a save that is not newer changes
 * nothing; getMeal shows a meal as a page with includeDeleted does, with that version.
 */
export function runSourceVersionsSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: source versions of saves', ({ test }) => {
    test('getMeal answers the item exactly as a page with includeDeleted sends it, live or tombstone, and the version', async () => {
      await withStore(options, async (storage) => {
        assert.deepEqual(await storage.writes.saveMeal(USER, versioned('a', 5), T0), {
          ok: true,
          outcome: 'created',
          modifiedAt: T0,
        });
        const live = await storage.feed.getMeal(USER, 'a');
        const page = await feed(storage, { userId: USER, includeDeleted: true });
        assert.deepEqual(live, { item: page.items.toString('utf8'), modifiedAt: T0, deleted: false, sourceVersion: 5 });
        assert.equal((JSON.parse(live?.item ?? '{}') as { deleted?: boolean }).deleted, false);

        await storage.writes.upsertMeals(USER, [meal('b')], T0);
        assert.equal(await storage.writes.deleteMeal(USER, 'b', T0), 'deleted');
        const [, tombstone] = (await feed(storage, { userId: USER, includeDeleted: true })).items
          .toString('utf8')
          .split(/,(?=\{"id":"b")/);
        assert.deepEqual(await storage.feed.getMeal(USER, 'b'), {
          item: tombstone,
          modifiedAt: T0 + 2,
          deleted: true,
          sourceVersion: null,
        });
      });
    });

    test("getMeal knows no made-up id and no other user's meal", async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(OTHER, [meal('theirs')], T0);
        assert.equal(await storage.feed.getMeal(USER, 'nope'), undefined);
        assert.equal(await storage.feed.getMeal(USER, 'theirs'), undefined);
        assert.equal(await versionOf(storage, 'theirs', OTHER), null);
      });
    });

    test('a save whose version is not greater than the stored one is stale: nothing written, the clock stays', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.saveMeal(USER, versioned('a', 5), T0);
        for (const version of [5, 4, 0]) {
          const result = await storage.writes.saveMeal(USER, versioned('a', version, { title: 'older' }), T0 + 10);
          assert.deepEqual(result, { ok: true, outcome: 'stale', modifiedAt: T0 }, `version ${version}`);
        }
        assert.equal(await titleOf(storage, 'a'), 'meal a');
        assert.equal(await versionOf(storage, 'a'), 5);
        assert.equal((await feed(storage, { userId: USER })).newestChangeAt, T0);
      });
    });

    test('a retry (the stored version with the stored meal) is unchanged, not stale: nothing written, the clock stays', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.saveMeal(USER, versioned('a', 5), T0);
        const retry = await storage.writes.saveMeal(USER, versioned('a', 5), T0 + 10);
        assert.deepEqual(retry, { ok: true, outcome: 'unchanged', modifiedAt: T0 });
        // The same version with another record was overtaken by nothing: it lost to the stored save.
        const other = await storage.writes.saveMeal(USER, versioned('a', 5, { title: 'other' }), T0 + 10);
        assert.deepEqual(other, { ok: true, outcome: 'stale', modifiedAt: T0 });
        // An older version of the same record is stale too: it is not the save that is stored.
        const older = await storage.writes.saveMeal(USER, versioned('a', 4), T0 + 10);
        assert.deepEqual(older, { ok: true, outcome: 'stale', modifiedAt: T0 });
        assert.equal(await versionOf(storage, 'a'), 5);
        assert.equal((await feed(storage, { userId: USER })).newestChangeAt, T0);
      });
    });

    test('a newer version updates and is stored; a save without one always applies and keeps the stored one', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.saveMeal(USER, versioned('a', 5), T0);
        const newer = await storage.writes.saveMeal(USER, versioned('a', 9, { title: 'nine' }), T0);
        assert.deepEqual(newer, { ok: true, outcome: 'updated', modifiedAt: T0 + 1 });
        assert.equal(await versionOf(storage, 'a'), 9);
        const plain = await storage.writes.saveMeal(USER, meal('a', { title: 'plain' }), T0);
        assert.deepEqual(plain, { ok: true, outcome: 'updated', modifiedAt: T0 + 2 });
        assert.equal(await titleOf(storage, 'a'), 'plain');
        assert.equal(await versionOf(storage, 'a'), 9, 'the stored version is kept');
        assert.equal((await storage.writes.saveMeal(USER, versioned('a', 9), T0)).ok, true);
        assert.equal(await titleOf(storage, 'a'), 'plain', 'version 9 again is stale');
        // No version given ever: none stored.
        await storage.writes.saveMeal(USER, meal('b'), T0);
        assert.equal(await versionOf(storage, 'b'), null);
      });
    });

    test('an unchanged save with a greater version records it alone: unchanged, its modifiedAt and the clock kept', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.saveMeal(USER, versioned('a', 5), T0);
        await storage.writes.saveMeal(USER, meal('b'), T0);
        const before = await feed(storage, { userId: USER, includeDeleted: true });
        assert.deepEqual(await storage.writes.saveMeal(USER, versioned('a', 7), T0 + 50), {
          ok: true,
          outcome: 'unchanged',
          modifiedAt: T0,
        });
        assert.deepEqual(
          await storage.writes.upsertMeals(USER, [versioned('b', 3)], T0 + 50),
          counts({ unchanged: 1 }),
        );
        assert.deepEqual(
          await feed(storage, { userId: USER, includeDeleted: true }),
          before,
          'the feed and clock stay',
        );
        assert.equal(await versionOf(storage, 'a'), 7);
        assert.equal(await versionOf(storage, 'b'), 3);
        // Recorded: a changed save of version 6 now comes too late.
        const late = await storage.writes.saveMeal(USER, versioned('a', 6, { title: 'six' }), T0 + 50);
        assert.deepEqual(late, { ok: true, outcome: 'stale', modifiedAt: T0 });
      });
    });

    test('a deleted meal saved again comes back (updated) unless stale against the tombstone, answering its modifiedAt', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.saveMeal(USER, versioned('a', 5), T0);
        assert.equal(await storage.writes.deleteMeal(USER, 'a', T0, 6), 'deleted');
        assert.deepEqual(await storage.writes.saveMeal(USER, versioned('a', 6), T0), {
          ok: true,
          outcome: 'stale',
          modifiedAt: T0 + 1,
        });
        assert.equal((await storage.feed.getMeal(USER, 'a'))?.deleted, true);
        assert.deepEqual(await storage.writes.saveMeal(USER, versioned('a', 7), T0), {
          ok: true,
          outcome: 'updated',
          modifiedAt: T0 + 2,
        });
        assert.deepEqual(await feedItems(storage, { userId: USER }), [
          { ...meal('a'), date: '2025-06-01T12:00:00.000Z', modifiedAt: new Date(T0 + 2).toISOString() },
        ]);
        assert.equal(await versionOf(storage, 'a'), 7);
      });
    });

    test("saveMeal of another user's id writes nothing and answers foreign_id", async () => {
      await withStore(options, async (storage) => {
        await storage.writes.saveMeal(OTHER, versioned('theirs', 1), T0);
        const result = await storage.writes.saveMeal(USER, versioned('theirs', 2), T0);
        assert.deepEqual(result, { ok: false, reason: 'foreign_id', index: 0 });
        assert.equal(await versionOf(storage, 'theirs', OTHER), 1);
      });
    });

    test('upsertMeals counts stale records beside the others, each kind in one call', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(USER, [versioned('s', 5), versioned('u', 5), versioned('same', 5)], T0);
        const mixed = [
          versioned('s', 4, { title: 'older' }),
          versioned('new', 1),
          versioned('u', 6, { title: 'newer' }),
          versioned('u', 6, { title: 'the same version again' }),
          versioned('same', 6),
        ];
        assert.deepEqual(
          await storage.writes.upsertMeals(USER, mixed, T0),
          counts({ created: 1, updated: 1, unchanged: 1, stale: 2 }),
        );
        assert.deepEqual(
          (await feedItems(storage, { userId: USER })).map((item) => [item.id, item.title]),
          [
            ['s', 'meal s'],
            ['same', 'meal same'],
            ['new', 'meal new'],
            ['u', 'newer'],
          ],
        );
        const foreign = await storage.writes.upsertMeals(OTHER, [versioned('x', 1), versioned('u', 9)], T0);
        assert.deepEqual(foreign, { ok: false, reason: 'foreign_id', index: 1 });
      });
    });

    // A first write of a user takes the append path (no look-ups), a later one looks ids up:
    // both must give the later record of an id the version the earlier one left.
    for (const user of ['a new user', 'a user with meals']) {
      test(`an id repeated in one upsert meets the earlier record's version, for ${user}`, async () => {
        await withStore(options, async (storage) => {
          if (user === 'a user with meals') await storage.writes.upsertMeals(USER, [meal('before')], T0);
          const records = [
            versioned('down', 6, { title: 'six' }),
            versioned('down', 5, { title: 'five' }),
            versioned('up', 5, { title: 'five' }),
            versioned('up', 6, { title: 'six' }),
            versioned('same', 5),
            versioned('same', 7),
            versioned('same', 6, { title: 'six' }),
            meal('plain', { title: 'first' }),
            versioned('plain', 2),
            meal('plain', { title: 'last' }),
          ];
          assert.deepEqual(
            await storage.writes.upsertMeals(USER, records, T0),
            counts({ created: 4, updated: 3, unchanged: 1, stale: 2 }),
          );
          const expected = { down: [6, 'six'], up: [6, 'six'], same: [7, 'meal same'], plain: [2, 'last'] };
          for (const [id, [version, title]] of Object.entries(expected)) {
            assert.deepEqual([await versionOf(storage, id), await titleOf(storage, id)], [version, title], id);
          }
        });
      });
    }

    test('an import applies the rules across its batches and counts stale records', async () => {
      await withStore(options, async (storage) => {
        await storage.writes.upsertMeals(USER, [versioned('kept', 5)], T0);
        const result = await storage.writes.importMeals(
          USER,
          batches(
            [versioned('a', 2), versioned('kept', 5, { title: 'same version' }), versioned('a', 1, { title: 'one' })],
            [versioned('a', 1, { title: 'one' }), versioned('a', 3, { title: 'three' }), versioned('kept', 8)],
          ),
          T0,
        );
        assert.deepEqual(result, counts({ created: 1, updated: 1, unchanged: 1, stale: 3 }));
        assert.deepEqual([await versionOf(storage, 'a'), await titleOf(storage, 'a')], [3, 'three']);
        assert.deepEqual([await versionOf(storage, 'kept'), await titleOf(storage, 'kept')], [8, 'meal kept']);
        assert.equal((await feed(storage, { userId: USER })).newestChangeAt, T0 + 2);
      });
    });

    test('a new user whose first import repeats no id stores every version through the append path', async () => {
      await withStore(options, async (storage) => {
        const first = Array.from({ length: 120 }, (_, index) => versioned(`m${index}`, index * 10));
        const result = await storage.writes.importMeals(USER, batches(first.slice(0, 70), first.slice(70)), T0);
        assert.deepEqual(result, counts({ created: 120 }));
        assert.equal(await versionOf(storage, 'm0'), 0);
        assert.equal(await versionOf(storage, 'm119'), 1190);
        const again = first.map((record) => ({ ...record, title: 'older' }));
        assert.deepEqual(await storage.writes.upsertMeals(USER, again, T0), counts({ stale: 120 }));
      });
    });
  });
}
