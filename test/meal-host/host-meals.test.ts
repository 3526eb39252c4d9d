import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { USER_PIECE_RECORDS } from '../../src/meals-io/all-users-import.js';
import { hostRefusal, useTempMealHost } from '../support/temp-meal-host.js';

const record = { type: 'dinner' as const, date: '2025-03-01T19:00:00Z', title: 'Soup' };

/** meal-export/host's saveMeal and getMeal: the host API's PUT and GET, for a Node.js back end. */
describe('the host module, one meal at a time', () => {
  const store = useTempMealHost('host-meals');

  test('saveMeal answers created, unchanged, stale and updated, with the modifiedAt after the call', async () => {
    const created = await store.host.saveMeal('u1', 'soup', { ...record, sourceVersion: 3 });
    assert.equal(created.outcome, 'created');
    assert.deepEqual(await store.host.saveMeal('u1', 'soup', { ...record, sourceVersion: 4 }), {
      ...created,
      outcome: 'unchanged',
    });
    assert.deepEqual(await store.host.saveMeal('u1', 'soup', { ...record, title: 'x', sourceVersion: 4 }), {
      ...created,
      outcome: 'stale',
    });
    const updated = await store.host.saveMeal('u1', 'soup', { ...record, title: 'Broth', sourceVersion: 5 });
    assert.equal(updated.outcome, 'updated');
    const stored = await store.host.getMeal('u1', 'soup');
    assert.deepEqual(stored === undefined ? undefined : [stored.deleted, stored.sourceVersion, stored.modifiedAt], [
      false,
      5,
      updated.modifiedAt,
    ]);
    assert.equal(await store.host.getMeal('u2', 'soup'), undefined, "another user's meal is unknown");
  });

  test('getMeal shows a tombstone with its version; saveMeal refuses bad records and foreign ids', async () => {
    await store.host.saveMeal('u3', 'gone', record);
    assert.equal(await store.host.deleteMeal('u3', 'gone', { sourceVersion: 9 }), 'deleted');
    const tombstone = await store.host.getMeal('u3', 'gone');
    assert.deepEqual(tombstone === undefined ? [] : Object.keys(tombstone), [
      'id',
      'modifiedAt',
      'deleted',
      'sourceVersion',
    ]);
    await assert.rejects(
      store.host.saveMeal('u3', 'x', { ...record, type: 'tea' as 'lunch' }),
      hostRefusal('invalid_meal'),
    );
    await assert.rejects(store.host.saveMeal('u4', 'gone', record), hostRefusal('id_taken'));
  });

  test("utcOffset: a record's own, else its date's numeric offset, else null; a bad one is refused naming it", async () => {
    await store.host.saveMeal('u5', 'west', { type: 'dinner', date: '2026-11-25T19:30:00-08:00' });
    await store.host.saveMeal('u5', 'east', { type: 'lunch', date: '2026-11-25T03:00:00Z', utcOffset: '+09:00' });
    await store.host.saveMeal('u5', 'utc', { type: 'snack', date: '2026-11-25T03:00:00Z' });
    const offsets = await Promise.all(
      ['west', 'east', 'utc'].map(async (id) => {
        const meal = await store.host.getMeal('u5', id);
        return meal !== undefined && !meal.deleted ? [meal.date, meal.utcOffset] : undefined;
      }),
    );
    assert.deepEqual(offsets, [
      ['2026-11-26T03:30:00.000Z', '-08:00'],
      ['2026-11-25T03:00:00.000Z', '+09:00'],
      ['2026-11-25T03:00:00.000Z', null],
    ]);
    const { ids } = await store.host.upsertMeals('u5', [
      { id: 'batch', type: 'snack', date: '2026-11-25T23:00:00+05:45' },
    ]);
    assert.deepEqual(ids, ['batch']);
    const batch = await store.host.getMeal('u5', 'batch');
    assert.equal(batch !== undefined && !batch.deleted ? batch.utcOffset : undefined, '+05:45');
    await assert.rejects(
      store.host.saveMeal('u5', 'bad', { type: 'lunch', date: '2026-11-25T03:00:00Z', utcOffset: '+15:00' }),
      hostRefusal('invalid_meal', /utcOffset must be an offset from UTC/),
    );
    await assert.rejects(
      store.host.saveMeal('u5', 'clash', { type: 'lunch', date: '2025-03-01T10:00:00+01:00', utcOffset: '+05:30' }),
      hostRefusal(
        'invalid_meal',
        /^Meal 0: utcOffset must be the offset written in date \(\+01:00\), or absent, got "\+05:30"\.$/,
      ),
    );
  });

  test('a meal getMeal read saves back with saveMeal and upsertMeals as it is; another id or deleted true is refused', async () => {
    await store.host.saveMeal('u6', 'kept', record);
    const read = await store.host.getMeal('u6', 'kept');
    if (read === undefined || read.deleted) return assert.fail('the meal was saved');
    assert.equal((await store.host.saveMeal('u6', 'kept', read)).outcome, 'unchanged');
    assert.equal((await store.host.upsertMeals('u6', [{ ...read, title: 'Stew' }])).updated, 1);
    await assert.rejects(
      store.host.saveMeal('u6', 'kept', { ...read, id: 'other' }),
      hostRefusal('invalid_meal', /^Meal 0: id must be the path's meal id "kept" or absent, got "other"\.$/),
    );
    const tombstoneLike = { ...read, deleted: true } as unknown as typeof read;
    await assert.rejects(
      store.host.saveMeal('u6', 'kept', tombstoneLike),
      hostRefusal('invalid_meal', /deleted must be false/),
    );
  });
});

describe("the host module, the app's history", () => {
  const store = useTempMealHost('host-history');

  test('importHistory commits batches of whole users from a stream; a bad meal throws with its index and keeps the batches before it', async () => {
    // A piece's worth of meals of the first user (one batch, whole), then two of the second.
    const firstMeals = USER_PIECE_RECORDS;
    async function* history(bad: boolean) {
      for (let n = 0; n < firstMeals + 2; n += 1) {
        const userId = n < firstMeals ? 'h-first' : 'h-second';
        yield { ...record, userId, id: `h-${n}`, ...(bad && n === firstMeals + 1 ? { caloriesTotal: -1 } : {}) };
      }
    }
    await assert.rejects(
      store.host.importHistory(history(true)),
      hostRefusal(
        'invalid_meal',
        new RegExp(
          `^Meal ${firstMeals + 1}: caloriesTotal .* ${firstMeals} records before it were committed \\(through meal ${firstMeals - 1}\\): call again with the same meals once it is fixed\\.$`,
        ),
      ),
    );
    assert.equal((await store.host.getMeal('h-first', `h-${firstMeals - 1}`))?.deleted, false);
    assert.equal(await store.host.getMeal('h-second', `h-${firstMeals}`), undefined);
    assert.deepEqual(await store.host.importHistory(history(false)), {
      imported: firstMeals + 2,
      created: 2,
      updated: 0,
      unchanged: firstMeals,
      stale: 0,
      batches: 2,
    });
    await assert.rejects(
      store.host.importHistory([{ ...record, userId: 'h-third', id: 'h-0' }]),
      (error: unknown) => hostRefusal('id_taken')(error) && (error as { index?: number }).index === 0,
    );
  });
});
