import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hostRefusal, useTempMealHost } from '../support/temp-meal-host.js';

const meal = (id: string, sourceVersion: number | undefined, title = `meal ${id}`) => ({
  id,
  title,
  type: 'lunch' as const,
  date: '2025-03-01T12:00:00Z',
  ...(sourceVersion === undefined ? {} : { sourceVersion }),
});

/** meal-export/host's upsertMeals and deleteMeal with sourceVersion (docs/host-api.md#ordering-saves-sourceversion). */
describe('the host module with source versions', () => {
  const store = useTempMealHost('host-versions');

  test('upsertMeals takes sourceVersion and answers how many records were stale', async () => {
    assert.deepEqual(await store.host.upsertMeals('u1', [meal('a', 5), meal('b', 5)]), {
      ids: ['a', 'b'],
      created: 2,
      updated: 0,
      unchanged: 0,
      stale: 0,
    });
    assert.deepEqual(await store.host.upsertMeals('u1', [meal('a', 4, 'older'), meal('b', 6, 'newer'), meal('b', 7)]), {
      ids: ['a', 'b', 'b'],
      created: 0,
      updated: 2,
      unchanged: 0,
      stale: 1,
    });
    await assert.rejects(
      store.host.upsertMeals('u1', [meal('c', 1), { ...meal('d', undefined), sourceVersion: 1.5 }]),
      hostRefusal('invalid_meal', /^Meal 1: sourceVersion must be an integer from 0 to 9007199254740991, got 1\.5\.$/),
    );
  });

  test('deleteMeal with a sourceVersion: stale, deleted, already_deleted, an unknown id recorded, a foreign id refused', async () => {
    await store.host.upsertMeals('u2', [meal('x', 5)]);
    await store.host.upsertMeals('other', [meal('theirs', 1)]);
    assert.equal(await store.host.deleteMeal('u2', 'x', { sourceVersion: 5 }), 'stale');
    assert.equal(await store.host.deleteMeal('u2', 'x', { sourceVersion: 6 }), 'deleted');
    assert.equal(await store.host.deleteMeal('u2', 'x', { sourceVersion: 7 }), 'already_deleted');
    assert.equal(await store.host.deleteMeal('u2', 'x'), 'already_deleted');
    assert.equal(await store.host.deleteMeal('u2', 'x', { sourceVersion: 7 }), 'already_deleted', 'a retry');
    assert.equal(await store.host.deleteMeal('u2', 'x', { sourceVersion: 6 }), 'stale');
    assert.equal(await store.host.deleteMeal('u2', 'ahead', { sourceVersion: 3 }), 'deleted');
    assert.equal(
      (await store.host.upsertMeals('u2', [meal('ahead', 2)])).stale,
      1,
      'an older save arriving later is stale',
    );
    assert.equal(await store.host.deleteMeal('u2', 'nobody'), 'not_found');
    assert.equal(await store.host.deleteMeal('u2', 'theirs'), 'not_found');
    await assert.rejects(
      store.host.deleteMeal('u2', 'theirs', { sourceVersion: 9 }),
      hostRefusal('id_taken', /"theirs" belongs to another user/),
    );
    for (const sourceVersion of [-1, 0.5, 2 ** 53]) {
      await assert.rejects(
        store.host.deleteMeal('u2', 'x', { sourceVersion }),
        hostRefusal('invalid_argument', /^sourceVersion must be an integer from 0 to 9007199254740991/),
      );
    }
  });
});
