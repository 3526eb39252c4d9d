import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type MealHost, MealHostError, openMealHost } from '../../src/host/index.js';
import { makeTempDir } from '../support/project.js';

const meal = (id: string, sourceVersion: number | undefined, title = `meal ${id}`) => ({
  id,
  title,
  type: 'lunch' as const,
  date: '2025-03-01T12:00:00Z',
  ...(sourceVersion === undefined ? {} : { sourceVersion }),
});

const refusedWith = (code: string, message: RegExp) => (error: unknown) => {
  assert.ok(error instanceof MealHostError, String(error));
  assert.equal(error.code, code);
  assert.match(error.message, message);
  return true;
};

/** meal-export/host's upsertMeals and deleteMeal with sourceVersion (docs/host-api.md#ordering-saves-sourceversion). */
describe('the host module with source versions', () => {
  const temp = makeTempDir('host-versions');
  let host: MealHost;

  before(async () => {
    host = await openMealHost(path.join(temp.dir, 'store.db'));
  });

  after(async () => {
    await host?.close();
    temp.remove();
  });

  test('upsertMeals takes sourceVersion and answers how many records were stale', async () => {
    assert.deepEqual(await host.upsertMeals('u1', [meal('a', 5), meal('b', 5)]), {
      ids: ['a', 'b'],
      created: 2,
      updated: 0,
      unchanged: 0,
      stale: 0,
    });
    assert.deepEqual(await host.upsertMeals('u1', [meal('a', 4, 'older'), meal('b', 6, 'newer'), meal('b', 7)]), {
      ids: ['a', 'b', 'b'],
      created: 0,
      updated: 2,
      unchanged: 0,
      stale: 1,
    });
    await assert.rejects(
      host.upsertMeals('u1', [meal('c', 1), { ...meal('d', undefined), sourceVersion: 1.5 }]),
      refusedWith('invalid_meal', /^meal 1: sourceVersion must be an integer from 0 to 9007199254740991, got 1.5$/),
    );
  });

  test('deleteMeal with a sourceVersion: stale, deleted, already_deleted, an unknown id recorded, a foreign id refused', async () => {
    await host.upsertMeals('u2', [meal('x', 5)]);
    await host.upsertMeals('other', [meal('theirs', 1)]);
    assert.equal(await host.deleteMeal('u2', 'x', { sourceVersion: 5 }), 'stale');
    assert.equal(await host.deleteMeal('u2', 'x', { sourceVersion: 6 }), 'deleted');
    assert.equal(await host.deleteMeal('u2', 'x', { sourceVersion: 7 }), 'already_deleted');
    assert.equal(await host.deleteMeal('u2', 'x'), 'already_deleted');
    assert.equal(await host.deleteMeal('u2', 'x', { sourceVersion: 7 }), 'stale');
    assert.equal(await host.deleteMeal('u2', 'ahead', { sourceVersion: 3 }), 'deleted');
    assert.equal((await host.upsertMeals('u2', [meal('ahead', 2)])).stale, 1, 'an older save arriving later is stale');
    assert.equal(await host.deleteMeal('u2', 'nobody'), 'not_found');
    assert.equal(await host.deleteMeal('u2', 'theirs'), 'not_found');
    await assert.rejects(
      host.deleteMeal('u2', 'theirs', { sourceVersion: 9 }),
      refusedWith('foreign_meal_id', /"theirs" belongs to another user/),
    );
    for (const sourceVersion of [-1, 0.5, 2 ** 53]) {
      await assert.rejects(
        host.deleteMeal('u2', 'x', { sourceVersion }),
        refusedWith('invalid_argument', /^sourceVersion must be an integer from 0 to 9007199254740991/),
      );
    }
  });
});
