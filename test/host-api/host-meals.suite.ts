import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type HostApiServer, hostCall, hostRecord, mealPath } from '../support/host-api.js';
import { getMeals, newUserId } from '../support/server.js';

const SINCE = { lastModifiedSince: '2000-01-01T00:00:00Z', includeDeleted: 'true' };

interface Answer {
  readonly id: string;
  readonly outcome: string;
  readonly modifiedAt?: string;
}

/** PUT of a record; its answer's body. */
async function put(server: HostApiServer, userId: string, mealId: string, record: object, status = 200) {
  const res = await hostCall(server, { method: 'PUT', path: mealPath(userId, mealId), json: record });
  assert.equal(res.status, status, res.text);
  return res.json as Answer;
}

async function remove(server: HostApiServer, userId: string, mealId: string, version?: number) {
  const query = version === undefined ? '' : `?sourceVersion=${version}`;
  return hostCall(server, { method: 'DELETE', path: `${mealPath(userId, mealId)}${query}` });
}

async function stored(server: HostApiServer, userId: string, mealId: string) {
  const res = await hostCall(server, { path: mealPath(userId, mealId) });
  assert.equal(res.status, 200, res.text);
  return res.json as Record<string, unknown>;
}

/** The user's feed as a key of theirs reads it, with tombstones. */
async function feed(server: HostApiServer, userId: string) {
  const { key } = await server.createKey(userId);
  const res = await getMeals(server, key, SINCE);
  assert.equal(res.status, 200, res.text);
  return (res.json as { meals: Array<Record<string, unknown>> }).meals;
}

/** The rules of one meal's PUT, GET and DELETE, over HTTPS, on the store `open` serves. */
export function hostMealRules(name: string, open: () => HostApiServer) {
  describe(`${name}: one meal`, () => {
    test('PUT creates, updates, is unchanged for the same record, and GET shows it as the feed does', async () => {
      const server = open();
      const userId = newUserId('put');
      const created = await put(server, userId, 'm1', hostRecord());
      assert.equal(created.outcome, 'created');
      assert.equal(created.id, 'm1');
      const again = await put(server, userId, 'm1', hostRecord());
      assert.deepEqual(again, { ...created, outcome: 'unchanged' }, 'unchanged keeps its modifiedAt');
      const updated = await put(server, userId, 'm1', hostRecord({ title: 'Oats' }));
      assert.equal(updated.outcome, 'updated');
      assert.ok(updated.modifiedAt! > created.modifiedAt!);
      const [item] = await feed(server, userId);
      assert.deepEqual(await stored(server, userId, 'm1'), { ...item, sourceVersion: null });
      assert.equal(item?.modifiedAt, updated.modifiedAt);
      assert.equal(item?.title, 'Oats');
    });

    test("utcOffset: PUTs east and west of UTC around midnight keep the person's offset beside a UTC date; a bad one is 422", async () => {
      const server = open();
      const userId = newUserId('offset');
      // 23:30 on the 25th in San Francisco and in Tokyo, the offset in the date; 00:30 on the 26th in
      // Tokyo given beside a UTC date; and a Z date, which names no place.
      await put(server, userId, 'sf', hostRecord({ date: '2026-11-25T23:30:00-08:00' }));
      await put(server, userId, 'tokyo', hostRecord({ date: '2026-11-25T23:30:00+09:00' }));
      await put(server, userId, 'tokyo-2', hostRecord({ date: '2026-11-25T15:30:00Z', utcOffset: '+09:00' }));
      await put(server, userId, 'utc', hostRecord({ date: '2026-11-25T23:30:00Z' }));
      const items = Object.fromEntries(
        (await feed(server, userId)).map((item) => [item.id, [item.date, item.utcOffset]]),
      );
      assert.deepEqual(items, {
        sf: ['2026-11-26T07:30:00.000Z', '-08:00'],
        tokyo: ['2026-11-25T14:30:00.000Z', '+09:00'],
        'tokyo-2': ['2026-11-25T15:30:00.000Z', '+09:00'],
        utc: ['2026-11-25T23:30:00.000Z', null],
      });
      const keys = Object.keys((await feed(server, userId))[0] ?? {});
      assert.deepEqual(keys.slice(4, 7), ['date', 'utcOffset', 'caloriesTotal'], 'utcOffset follows date');
      assert.equal((await stored(server, userId, 'sf')).utcOffset, '-08:00');

      // The same instant and offset written the other way is the same meal; the offset alone is a change.
      const same = await put(server, userId, 'sf', hostRecord({ date: '2026-11-26T07:30:00Z', utcOffset: '-08:00' }));
      assert.equal(same.outcome, 'unchanged');
      const moved = await put(server, userId, 'sf', hostRecord({ date: '2026-11-26T07:30:00Z', utcOffset: '-07:00' }));
      assert.equal(moved.outcome, 'updated');

      for (const bad of ['+15:00', '+9', 'Z', '09:00', 9]) {
        const res = await hostCall(server, {
          method: 'PUT',
          path: mealPath(userId, 'bad'),
          json: hostRecord({ utcOffset: bad }),
        });
        assert.equal(res.status, 422, JSON.stringify(bad));
        assert.deepEqual((res.json as { error: { code: string; param: string } }).error.param, 'utcOffset');
        assert.equal((res.json as { error: { code: string } }).error.code, 'invalid_record');
      }
      assert.equal((await hostCall(server, { path: mealPath(userId, 'bad') })).status, 404, 'nothing written');
    });

    test("utcOffset that differs from the offset written in date is 422 naming utcOffset; beside Z, +00:00 or -00:00 it is the person's", async () => {
      const server = open();
      const userId = newUserId('offset-clash');
      const res = await hostCall(server, {
        method: 'PUT',
        path: mealPath(userId, 'clash'),
        json: hostRecord({ date: '2025-03-01T10:00:00+01:00', utcOffset: '+05:30' }),
      });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.json, {
        error: {
          message: 'utcOffset must be the offset written in date (+01:00), or absent, got "+05:30".',
          code: 'invalid_record',
          param: 'utcOffset',
        },
      });
      assert.equal((await hostCall(server, { path: mealPath(userId, 'clash') })).status, 404, 'nothing written');
      for (const [id, date] of [
        ['z', '2025-03-01T10:00:00Z'],
        ['plus', '2025-03-01T10:00:00+00:00'],
        ['minus', '2025-03-01T10:00:00-00:00'],
      ]) {
        await put(server, userId, id ?? '', hostRecord({ date, utcOffset: '+05:30' }));
        assert.equal((await stored(server, userId, id ?? '')).utcOffset, '+05:30', date);
      }
    });

    test("a meal a GET answered saves back as it is; id must be the path's, deleted only false", async () => {
      const server = open();
      const userId = newUserId('read-back');
      const mealId = `${userId}-m`;
      await put(server, userId, mealId, hostRecord({ title: 'Porridge' }));
      const read = await stored(server, userId, mealId);
      assert.equal(read.deleted, false);
      assert.equal(read.sourceVersion, null);
      assert.equal((await put(server, userId, mealId, read)).outcome, 'unchanged', 'read, then saved as it is');
      const changed = await put(server, userId, mealId, {
        ...read,
        title: 'Oats',
        modifiedAt: '2000-01-01T00:00:00.000Z',
      });
      assert.equal(changed.outcome, 'updated', 'modifiedAt is ignored: the store sets it');
      assert.ok(changed.modifiedAt! > String(read.modifiedAt));
      const refusals: Array<[object, string, string]> = [
        [{ ...read, id: 'm2' }, 'id', `id must be the path's meal id "${mealId}" or absent, got "m2".`],
        [{ ...read, deleted: true }, 'deleted', 'deleted must be false or absent (a delete removes a meal), got true.'],
      ];
      for (const [record, param, message] of refusals) {
        const res = await hostCall(server, { method: 'PUT', path: mealPath(userId, mealId), json: record });
        assert.equal(res.status, 422, res.text);
        assert.deepEqual(res.json, { error: { message, code: 'invalid_record', param } });
      }
      assert.equal((await stored(server, userId, mealId)).title, 'Oats', 'nothing written by a refusal');
    });

    test('record faults read as one sentence each, the field named as written', async () => {
      const server = open();
      const userId = newUserId('words');
      const mealId = `${userId}-m`;
      const faults: Array<[object, string]> = [
        [{ date: '2025-03-01T10:00:00Z' }, 'type is required.'],
        [
          hostRecord({ utcOffset: '+15:00' }),
          'utcOffset must be an offset from UTC ±HH:MM, at most 14 hours, such as +09:00 or -08:00, or null, got "+15:00".',
        ],
        [hostRecord({ proteins_g: -1 }), 'proteins_g must be 0 or more, got -1.'],
        [hostRecord({ calories: 5 }), 'Unknown field "calories".'],
      ];
      for (const [record, message] of faults) {
        const res = await hostCall(server, { method: 'PUT', path: mealPath(userId, mealId), json: record });
        assert.equal(res.status, 422, res.text);
        assert.equal((res.json as { error: { message: string } }).error.message, message);
      }
    });

    test('sourceVersion: an older save, or an equal one with another record, is stale; a retry unchanged; a newer one applies, an unchanged newer one is recorded', async () => {
      const server = open();
      const userId = newUserId('version');
      const first = await put(server, userId, 'm', hostRecord({ sourceVersion: 5 }));
      assert.equal(first.outcome, 'created');
      const stale = await put(server, userId, 'm', hostRecord({ title: 'older', sourceVersion: 4 }));
      assert.deepEqual(stale, { id: 'm', outcome: 'stale', modifiedAt: first.modifiedAt });
      assert.equal((await put(server, userId, 'm', hostRecord({ title: 'same', sourceVersion: 5 }))).outcome, 'stale');
      // A retry (the stored version, the stored record) is done already: unchanged, not stale.
      const retry = await put(server, userId, 'm', hostRecord({ sourceVersion: 5 }));
      assert.deepEqual(retry, { id: 'm', outcome: 'unchanged', modifiedAt: first.modifiedAt });
      const unchanged = await put(server, userId, 'm', hostRecord({ sourceVersion: 7 }));
      assert.deepEqual(unchanged, { id: 'm', outcome: 'unchanged', modifiedAt: first.modifiedAt });
      assert.equal((await stored(server, userId, 'm')).sourceVersion, 7, 'the newer version is recorded');
      assert.equal((await put(server, userId, 'm', hostRecord({ title: 'six', sourceVersion: 6 }))).outcome, 'stale');
      const withoutVersion = await put(server, userId, 'm', hostRecord({ title: 'no version' }));
      assert.equal(withoutVersion.outcome, 'updated', 'a save without a version always applies');
      const meal = await stored(server, userId, 'm');
      assert.equal(meal.title, 'no version');
      assert.equal(meal.sourceVersion, 7, 'and keeps the stored version');
    });

    test('DELETE: deleted, then unchanged; stale against a newer version; a deleted meal comes back as updated', async () => {
      const server = open();
      const userId = newUserId('delete');
      await put(server, userId, 'd', hostRecord({ sourceVersion: 10 }));
      assert.deepEqual((await remove(server, userId, 'd', 9)).json, { id: 'd', outcome: 'stale' });
      assert.deepEqual((await remove(server, userId, 'd', 11)).json, { id: 'd', outcome: 'deleted' });
      const tombstone = await stored(server, userId, 'd');
      assert.deepEqual(Object.keys(tombstone), ['id', 'modifiedAt', 'deleted', 'sourceVersion']);
      assert.equal(tombstone.sourceVersion, 11);
      assert.deepEqual((await remove(server, userId, 'd', 12)).json, { id: 'd', outcome: 'unchanged' });
      assert.deepEqual((await remove(server, userId, 'd', 12)).json, { id: 'd', outcome: 'unchanged' }, 'a retry');
      assert.equal((await stored(server, userId, 'd')).sourceVersion, 12, 'a greater version is still recorded');
      assert.deepEqual((await remove(server, userId, 'd')).json, { id: 'd', outcome: 'unchanged' });
      assert.equal((await put(server, userId, 'd', hostRecord({ sourceVersion: 12 }))).outcome, 'stale');
      const back = await put(server, userId, 'd', hostRecord({ sourceVersion: 13 }));
      assert.equal(back.outcome, 'updated', 'a deleted meal comes back as updated');
      assert.equal((await stored(server, userId, 'd')).deleted, false);
    });

    test('DELETE of an id the user never had: 404 without a version, a tombstone with one, so a late save is stale', async () => {
      const server = open();
      const userId = newUserId('unknown');
      const res = await remove(server, userId, 'never');
      assert.equal(res.status, 404, res.text);
      assert.equal((res.json as { error: { code: string } }).error.code, 'not_found');
      assert.deepEqual((await remove(server, userId, 'late', 3)).json, { id: 'late', outcome: 'deleted' });
      const items = await feed(server, userId);
      assert.deepEqual(
        items.map((item) => [item.id, item.deleted]),
        [['late', true]],
        'the tombstone is in the feed',
      );
      assert.equal((await put(server, userId, 'late', hostRecord({ sourceVersion: 2 }))).outcome, 'stale');
      assert.equal((await put(server, userId, 'late', hostRecord({ sourceVersion: 4 }))).outcome, 'updated');
    });

    test("another user's meal id: 409 id_taken for PUT and a versioned DELETE, 404 for GET and a plain DELETE", async () => {
      const server = open();
      const [owner, other] = [newUserId('owner'), newUserId('other')];
      await put(server, owner, 'shared', hostRecord());
      const taken = await hostCall(server, { method: 'PUT', path: mealPath(other, 'shared'), json: hostRecord() });
      assert.equal(taken.status, 409, taken.text);
      assert.equal((taken.json as { error: { code: string } }).error.code, 'id_taken');
      assert.equal((await remove(server, other, 'shared', 1)).status, 409);
      assert.equal((await remove(server, other, 'shared')).status, 404);
      assert.equal((await hostCall(server, { path: mealPath(other, 'shared') })).status, 404);
      assert.equal((await stored(server, owner, 'shared')).deleted, false, "the owner's meal is untouched");
    });

    test('percent-encoded ids round-trip: a slash, a space, non-ASCII, and the id `import`', async () => {
      const server = open();
      const userId = `user/${newUserId('enc')} é`;
      for (const mealId of ['a/b c', 'déjà vu', 'import', '100%']) {
        assert.equal((await put(server, userId, mealId, hostRecord())).id, mealId);
        const meal = await stored(server, userId, mealId);
        assert.equal(meal.id, mealId);
      }
      const ids = (await feed(server, userId)).map((item) => item.id);
      assert.deepEqual([...ids].sort(), ['100%', 'a/b c', 'déjà vu', 'import'].sort());
    });
  });
}
