import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getMeals, makeMeal, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { assertError, assertPage, idsOf, type MealPageBody, OLD } from './http-expect.js';

// Sync semantics (docs/api.md#staying-in-sync): lastModifiedSince and the cursor both filter, and
// includeDeleted gets 410 only when a pruned tombstone belongs in the answer. Tombstones are
// pruned with `meals prune --tombstone-days 0` on the running server's store, as an operator
// would; the server itself keeps the default retention.
let server: ServedApp;

before(async () => {
  server = await startInProcessServer();
});

after(async () => {
  await server.stop();
});

const iso = (epochMs: number) => new Date(epochMs).toISOString();

async function page(key: string, query: Record<string, string>): Promise<MealPageBody> {
  return assertPage(await getMeals(server, key, query));
}

/** A user with meals a, b, c (in that order) and b deleted: b's tombstone is the last change. */
async function userWithTombstone() {
  const userId = newUserId('sync');
  const { key } = await server.createKey(userId);
  const meals = [makeMeal(), makeMeal(), makeMeal()];
  const [a, b, c] = meals.map((m) => String(m.id)) as [string, string, string];
  await server.importMeals(userId, meals);
  await server.deleteMeal(userId, b);
  const all = await page(key, { lastModifiedSince: OLD, includeDeleted: 'true' });
  assert.deepEqual(
    all.meals.map((m) => [m.id, m.deleted]),
    [
      [a, false],
      [c, false],
      [b, true],
    ],
  );
  const tombstoneAt = Date.parse(all.meals[2]?.modifiedAt ?? '');
  // Cursors right before the tombstone (after c) and exactly at it (after b).
  const beforeTombstone = (await page(key, { lastModifiedSince: OLD, includeDeleted: 'true', limit: '2' })).nextCursor;
  const atTombstone = all.nextCursor;
  assert.ok(beforeTombstone !== null && atTombstone !== null);
  return { userId, key, ids: { a, b, c }, tombstoneAt, beforeTombstone, atTombstone };
}

describe('a cursor and lastModifiedSince both filter: the later of the two is where the page starts', () => {
  test('a cursor sent with a later lastModifiedSince starts at lastModifiedSince; with an earlier one, after the cursor', async () => {
    const userId = newUserId('both');
    const { key } = await server.createKey(userId);
    const meals = [makeMeal(), makeMeal(), makeMeal(), makeMeal()];
    await server.importMeals(userId, meals);
    const ids = meals.map((m) => String(m.id));
    const first = await page(key, { lastModifiedSince: OLD, limit: '1' });
    assert.deepEqual(idsOf(first), ids.slice(0, 1));
    const full = await page(key, { lastModifiedSince: OLD });
    const third = Date.parse(full.meals[2]?.modifiedAt ?? '');

    const later = await page(key, { lastModifiedSince: iso(third), cursor: first.nextCursor ?? '' });
    assert.deepEqual(idsOf(later), ids.slice(2), 'lastModifiedSince later than the cursor: from it, inclusive');
    assert.equal(later.lastModifiedSince, iso(third), 'the echo is the lastModifiedSince sent');
    const earlier = await page(key, { lastModifiedSince: OLD, cursor: first.nextCursor ?? '' });
    assert.deepEqual(idsOf(earlier), ids.slice(1), 'lastModifiedSince earlier than the cursor: after the cursor');
    const same = await page(key, {
      lastModifiedSince: full.meals[0]?.modifiedAt ?? '',
      cursor: first.nextCursor ?? '',
    });
    assert.deepEqual(idsOf(same), ids.slice(1), "lastModifiedSince at the cursor's instant: after the cursor");
    const beyond = await page(key, { lastModifiedSince: iso(third + 60_000), cursor: first.nextCursor ?? '' });
    assert.equal(beyond.count, 0);
    assert.equal(beyond.nextCursor, null);
  });
});

describe('410 resync_required only when a pruned tombstone belongs in the answer', () => {
  test('lastModifiedSince at the pruned tombstone is 410 (inclusive); one millisecond later is 200', async () => {
    const user = await userWithTombstone();
    assert.ok((await server.pruneTombstones(0)).pruned >= 1);
    const at = await getMeals(server, user.key, { lastModifiedSince: iso(user.tombstoneAt), includeDeleted: 'true' });
    assert.match(assertError(at, 410, 'resync_required').message, /from the beginning without includeDeleted/);
    assertError(
      await getMeals(server, user.key, { lastModifiedSince: OLD, includeDeleted: 'true' }),
      410,
      'resync_required',
    );
    const after = await page(user.key, { lastModifiedSince: iso(user.tombstoneAt + 1), includeDeleted: 'true' });
    assert.equal(after.count, 0);
  });

  test('a cursor exactly at the pruned tombstone is served (exclusive); one before it is 410', async () => {
    const user = await userWithTombstone();
    await server.pruneTombstones(0);
    const at = await page(user.key, { lastModifiedSince: OLD, includeDeleted: 'true', cursor: user.atTombstone });
    assert.equal(at.count, 0, 'the follower is past the pruned tombstone: nothing it needs is gone');
    const behind = { lastModifiedSince: OLD, includeDeleted: 'true', cursor: user.beforeTombstone };
    assertError(await getMeals(server, user.key, behind), 410, 'resync_required');

    // The same rule on the same starting point: a later lastModifiedSince moves the start past the tombstone.
    const moved = { ...behind, lastModifiedSince: iso(user.tombstoneAt + 1) };
    assert.equal((await page(user.key, moved)).count, 0);
  });

  test('without includeDeleted nothing is refused: the live meals from any starting point', async () => {
    const user = await userWithTombstone();
    await server.pruneTombstones(0);
    assert.deepEqual(idsOf(await page(user.key, { lastModifiedSince: OLD })), [user.ids.a, user.ids.c]);
    const resumed = await page(user.key, { lastModifiedSince: OLD, cursor: user.beforeTombstone });
    assert.equal(resumed.count, 0);
  });

  test('a follower past the pruned tombstone keeps following: a later deletion comes as a tombstone', async () => {
    const user = await userWithTombstone();
    await server.pruneTombstones(0);
    await server.deleteMeal(user.userId, user.ids.a);
    const next = await page(user.key, { lastModifiedSince: OLD, includeDeleted: 'true', cursor: user.atTombstone });
    assert.deepEqual(
      next.meals.map((m) => [m.id, m.deleted]),
      [[user.ids.a, true]],
    );
  });

  test('an account without pruned tombstones is served from any starting point, whatever other users pruned', async () => {
    const pruned = await userWithTombstone();
    await server.pruneTombstones(0);
    const idle = newUserId('idle');
    const { key } = await server.createKey(idle);
    const meals = [makeMeal(), makeMeal()];
    await server.importMeals(idle, meals);
    await server.deleteMeal(idle, String(meals[0]?.id ?? ''));
    for (const since of ['1970-01-01', OLD, iso(Date.now() - 40 * 86_400_000)]) {
      const body = await page(key, { lastModifiedSince: since, includeDeleted: 'true' });
      assert.deepEqual(
        body.meals.map((m) => [m.id, m.deleted]),
        [
          [meals[1]?.id, false],
          [meals[0]?.id, true],
        ],
        `from ${since}: the unpruned tombstone is there`,
      );
    }
    assertError(
      await getMeals(server, pruned.key, { lastModifiedSince: OLD, includeDeleted: 'true' }),
      410,
      'resync_required',
    );
  });

  test('a wrong parameter is reported before the 410: the parameters are checked first', async () => {
    const user = await userWithTombstone();
    await server.pruneTombstones(0);
    const res = await getMeals(server, user.key, { lastModifiedSince: OLD, includeDeleted: 'true', limit: '0' });
    assertError(res, 400, 'invalid_parameter', { param: 'limit' });
  });
});
