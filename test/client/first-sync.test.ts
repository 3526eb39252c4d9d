import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createMealExportClient, type SyncStep } from '../../src/client/index.js';
import { MealMirror } from '../../src/client/pull/meal-mirror.js';
import type { Meal } from '../../src/domain/meal.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { startMealsProxy } from '../support/meals-proxy.js';
import { makeTempDir } from '../support/project.js';
import { contentOf, makeMeal, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { assertSameAsExport, pull, pullFiles } from './pull-harness.js';

// A first sync reads a full pass without tombstones, then follows the changes from just after the
// user's newest change as the pass's first answer saw it (its Meals-Last-Modified header): each
// meal comes about once however recent the changes, and no change made during the pass is missed
// (docs/api.md#the-meals-last-modified-header). Writes go straight to the server's SQLite file, as
// another process (or another instance) would make them.
let server: ServedApp;
let store: Storage;
const temp = makeTempDir('first-sync');
const MINUTE = 60_000;
/** At most this many items per meal for a first sync: each meal downloaded about once. */
const AT_MOST_PER_MEAL = 1.1;

before(async () => {
  server = await startInProcessServer();
  store = await openStorage(server.db);
});

after(async () => {
  await store.close();
  await server.stop();
  temp.remove();
});

/** A user with `count` meals written by one import at `at` (now: all changed just now). */
async function userWith(count: number, at = Date.now()) {
  const userId = newUserId('first');
  const { key } = await server.createKey(userId);
  const meals = Array.from({ length: count }, () => contentOf(makeMeal()));
  assert.deepEqual(await store.writes.upsertMeals(userId, meals, at), {
    ok: true,
    created: count,
    updated: 0,
    unchanged: 0,
    stale: 0,
  });
  return { userId, key, ids: meals.map((meal) => meal.id) };
}

async function storedMeals(userId: string): Promise<Meal[]> {
  const meals: Meal[] = [];
  for await (const meal of store.feed.exportMeals(userId, 0)) meals.push(meal);
  return meals;
}

function clientFor(key: string) {
  const ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
  return createMealExportClient({ baseUrl: server.url, apiKey: key, ca });
}

/**
 * A sync from nothing to the end of the feed, applied to a copy as `pull` applies it;
 * `between` runs after each step is applied, before the next page is asked for.
 */
async function firstSync(key: string, limit: number, between: (step: SyncStep, index: number) => Promise<void>) {
  const client = clientFor(key);
  const copy = new MealMirror();
  let items = 0;
  let index = 0;
  try {
    for await (const step of client.sync({ limit })) {
      items += step.page.meals.length;
      copy.apply(step.page.meals);
      await between(step, index);
      index += 1;
    }
  } finally {
    client.close();
  }
  return { copy: [...copy.values()], items };
}

describe('a first sync downloads each meal about once, and misses no change', { concurrency: true }, () => {
  test('the SDK: 3000 meals all written just now, in pages of 200, come in at most 1.1 items per meal', async () => {
    const count = 3000;
    const user = await userWith(count);
    const synced = await firstSync(user.key, 200, async () => undefined);
    assert.ok(synced.items <= count * AT_MOST_PER_MEAL, `${synced.items} items for ${count} meals`);
    assert.deepEqual(synced.copy, await storedMeals(user.userId));
  });

  test('pull: 3000 meals all written just now, in pages of 200, come in at most 1.1 items per meal', async () => {
    const count = 3000;
    const user = await userWith(count);
    // The items are counted on their way to the pull, by a proxy with the server's certificate.
    const proxy = await startMealsProxy(server);
    try {
      const files = pullFiles(temp.dir, 'recent');
      const summary = await pull({ ...server, url: proxy.url }, user.key, files, ['--limit', '200']);
      assert.equal(summary.total, count);
      assert.ok(proxy.items() <= count * AT_MOST_PER_MEAL, `${proxy.items()} items for ${count} meals`);
      await assertSameAsExport(server, user.userId, files.out, 'csv');
    } finally {
      await proxy.close();
    }
  });

  test('a user with no change yet: a write under way during the pass, stamped 10 min before it, reaches the copy', async () => {
    // What a long import does: its meals are stamped with the instant it began and committed
    // at its end, after the pass read an empty feed without Meals-Last-Modified.
    const userId = newUserId('first');
    const { key } = await server.createKey(userId);
    const began = Date.now() - 10 * MINUTE;
    const client = clientFor(key);
    const copy = new MealMirror();
    try {
      let saved: SyncStep['position'] | undefined;
      for await (const step of client.sync({ limit: 100 })) {
        assert.equal(step.page.count, 0);
        saved = step.position;
      }
      assert.ok(saved !== undefined);
      const meals = [contentOf(makeMeal()), contentOf(makeMeal())];
      assert.equal((await store.writes.upsertMeals(userId, meals, began)).ok, true);
      for await (const step of client.sync({ from: saved, limit: 100 })) copy.apply(step.page.meals);
    } finally {
      client.close();
    }
    assert.deepEqual([...copy.values()], await storedMeals(userId));
    assert.equal(copy.size, 2);
  });

  // Writers at the real time, and an instance whose clock is 10 minutes behind (its changes
  // get the user's last modifiedAt + 1 ms, which is long before the pass began).
  for (const lagMinutes of [0, 10]) {
    test(`creates, changes and deletions made during the pass, before and after its position, all reach the copy (writer ${lagMinutes} min behind)`, async () => {
      const count = 1000;
      const user = await userWith(count, Date.now() - 2 * lagMinutes * MINUTE);
      const ids = user.ids as [string, ...string[]];
      const at = () => Date.now() - lagMinutes * MINUTE;
      const created = contentOf(makeMeal());
      let writes = 0;
      async function change(id: string): Promise<void> {
        const result = await store.writes.upsertMeals(user.userId, [contentOf(makeMeal(id))], at());
        assert.deepEqual(result, { ok: true, created: 0, updated: 1, unchanged: 0, stale: 0 });
        writes += 1;
      }
      async function remove(id: string): Promise<void> {
        assert.equal(await store.writes.deleteMeal(user.userId, id, at()), 'deleted');
        writes += 1;
      }
      const synced = await firstSync(user.key, 100, async (step, index) => {
        // Three pages of the pass read (ids 0 to 299), seven to come.
        if (index === 2) {
          assert.equal(step.page.hasMore, true);
          await change(ids[0]);
          await change(String(ids[900]));
          await remove(String(ids[1]));
          await remove(String(ids[950]));
          assert.equal((await store.writes.upsertMeals(user.userId, [created], at())).ok, true);
          writes += 1;
        }
        // Later in the pass: a deletion of the meal created during it, of one changed during it
        // (read again by now), and a change of one read before.
        if (index === 6) {
          assert.equal(step.page.hasMore, true);
          await remove(created.id);
          await remove(ids[0]);
          await change(String(ids[2]));
        }
      });
      const stored = await storedMeals(user.userId);
      assert.equal(stored.length, count - 3);
      assert.deepEqual(synced.copy, stored);
      // Only what changed during the pass may come twice.
      assert.ok(synced.items <= count + 2 * writes, `${synced.items} items for ${count} meals and ${writes} writes`);
    });
  }
});
