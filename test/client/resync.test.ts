import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createMealExportClient,
  MealExportResyncLoopError,
  type MealExportClient,
  type SyncStep,
} from '../../src/client/index.js';
import { withStorage } from '../../src/storage/open-storage.js';
import { runCli } from '../support/cli.js';
import { startMealsProxy } from '../support/meals-proxy.js';
import { makeTempDir } from '../support/project.js';
import { contentOf, makeMeal, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { assertSameAsExport, fileText, pull, pullArgs, pullFiles, waitFor } from './pull-harness.js';

// 410 resync_required comes only when a pruned tombstone belongs in the answer
// (docs/api.md#staying-in-sync). After a full pass the sync client follows from just after the
// user's newest change as the pass's first answer saw it (Meals-Last-Modified), so only a tombstone
// written after that answer and pruned can make its catch-up a 410: these tests delete and prune
// between pages, and place older tombstones by writing through the store with an earlier clock, as
// an instance whose clock lags would (the clock takes max(now, the user's last + 1 ms)).
let server: ServedApp;
const temp = makeTempDir('resync');
const MINUTE = 60_000;

before(async () => {
  server = await startInProcessServer();
});

after(async () => {
  await server.stop();
  temp.remove();
});

/** A user whose meals were written `minutesAgo` ago; returns the live meal ids. */
async function userWith(count: number, minutesAgo: number) {
  const userId = newUserId('resync');
  const { key } = await server.createKey(userId);
  const meals = Array.from({ length: count }, () => makeMeal());
  await withStorage(server.db, (storage) =>
    storage.writes.upsertMeals(userId, meals.map(contentOf), Date.now() - minutesAgo * MINUTE),
  );
  return { userId, key, ids: meals.map((m) => String(m.id)) };
}

/** The tests' deletes and prunes, one after the other: a prune takes every user's tombstones. */
let pruning: Promise<unknown> = Promise.resolve();

/** Deletes a meal with the store's clock at `at`, then prunes every tombstone up to now. */
function deleteAndPrune(userId: string, mealId: string, at: number): Promise<void> {
  const done = pruning.then(() =>
    withStorage(server.db, async (storage) => {
      assert.equal(await storage.writes.deleteMeal(userId, mealId, at), 'deleted');
      assert.ok((await storage.writes.pruneTombstones(Date.now())) >= 1);
    }),
  );
  pruning = done.catch(() => undefined);
  return done;
}

function clientFor(key: string): MealExportClient {
  const ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
  return createMealExportClient({ baseUrl: server.url, apiKey: key, ca });
}

describe('410 resync_required', { concurrency: true }, () => {
  test('from a position before a pruned tombstone, sync starts again without tombstones, says so, flags the page, then follows', async () => {
    const user = await userWith(4, 20);
    await deleteAndPrune(user.userId, String(user.ids[1]), Date.now() - 15 * MINUTE);
    const client = clientFor(user.key);
    const reasons: Error[] = [];
    const steps: SyncStep[] = [];
    const from = { lastModifiedSince: '2025-01-01T00:00:00.000Z', cursor: null, followSince: null };
    for await (const step of client.sync({ from, limit: 2, onResync: (reason) => reasons.push(reason) })) {
      steps.push(step);
    }
    client.close();
    assert.equal(reasons.length, 1);
    assert.match(reasons[0]?.message ?? '', /^Request failed with 410 resync_required: GET \/v1\/meals$/);
    assert.deepEqual(
      steps.map((s) => s.resynced),
      [true, false, false],
      'two pages of the pass, then the changes since it began',
    );
    assert.equal(steps[0]?.page.lastModifiedSince, '1970-01-01T00:00:00.000Z');
    const pass = steps.slice(0, 2).flatMap((s) => s.page.meals);
    assert.deepEqual(
      pass.map((m) => [m.id, m.deleted]),
      user.ids.filter((_, i) => i !== 1).map((id) => [id, undefined]),
    );
    const last = steps.at(-1)?.position;
    assert.equal(last?.followSince, null);
    assert.ok(Date.parse(last?.lastModifiedSince ?? '') > Date.now() - 3_600_000, 'following from a recent point');
  });

  test('a follow meets a 410 as sync does: it starts again, flags the page, then holds its polls and yields the next change', async () => {
    const user = await userWith(4, 20);
    await deleteAndPrune(user.userId, String(user.ids[1]), Date.now() - 15 * MINUTE);
    const client = clientFor(user.key);
    const stop = new AbortController();
    const steps: SyncStep[] = [];
    let reasons = 0;
    const from = { lastModifiedSince: '2025-01-01T00:00:00.000Z', cursor: null, followSince: null };
    const sync = client.sync({ from, follow: true, wait: 30, signal: stop.signal, onResync: () => (reasons += 1) });
    const ended = (async () => {
      for await (const step of sync) steps.push(step);
    })();
    ended.catch(() => undefined);
    // The resync pass (3 live meals, one page), then its catch-up: nothing since, so held.
    await waitFor('the resync pass', () => steps.length === 1);
    await sleep(1000);
    const meal = makeMeal();
    await server.importMeals(user.userId, [meal]);
    await waitFor('the change after the resync', () => steps.length === 2, 5000);
    stop.abort();
    await assert.rejects(ended, { name: 'AbortError' });
    client.close();
    assert.equal(reasons, 1);
    assert.deepEqual(
      steps.map((s) => [s.resynced, s.page.meals.map((m) => m.id)]),
      [
        [true, user.ids.filter((_, i) => i !== 1)],
        [false, [meal.id]],
      ],
    );
  });

  test('a 410 in the catch-up after a first full pass starts one resync, which then completes', async () => {
    const user = await userWith(3, 20);
    const client = clientFor(user.key);
    const steps: SyncStep[] = [];
    let reasons = 0;
    let passOver = false;
    for await (const step of client.sync({ limit: 2, onResync: () => (reasons += 1) })) {
      steps.push(step);
      if (passOver || step.page.hasMore) continue;
      passOver = true;
      // The first pass is over; its catch-up starts just after the newest change its first
      // answer saw (the import, 20 minutes ago). A tombstone written after that and pruned
      // belongs in it, but not in the catch-up of the resync that follows: that pass sees
      // the deletion as its newest change.
      await deleteAndPrune(user.userId, String(user.ids[0]), Date.now() - 5 * MINUTE);
    }
    client.close();
    assert.equal(reasons, 1, 'one resync');
    assert.deepEqual(
      steps.map((s) => s.resynced),
      [false, false, true, false],
      'the first pass (2 pages), the resync pass (2 live meals: 1 page, flagged), then the catch-up',
    );
    assert.deepEqual(
      steps[2]?.page.meals.map((m) => m.id),
      user.ids.slice(1),
    );
  });

  test('a second 410 in the same run is an error with a clear message, not a loop', async () => {
    // Tombstones pruned faster than a pass runs: a meal deleted and pruned right after each
    // pass's page makes every catch-up a 410.
    const user = await userWith(3, 20);
    const client = clientFor(user.key);
    const steps: SyncStep[] = [];
    let reasons = 0;
    await assert.rejects(
      async () => {
        for await (const step of client.sync({ onResync: () => (reasons += 1) })) {
          steps.push(step);
          await deleteAndPrune(user.userId, String(user.ids[steps.length - 1]), Date.now());
        }
      },
      (error: unknown) => {
        assert.ok(error instanceof MealExportResyncLoopError);
        assert.match(error.message, /410 resync_required again after a full resync in the same sync run/);
        return true;
      },
    );
    client.close();
    assert.equal(reasons, 1);
    assert.deepEqual(
      steps.map((s) => s.resynced),
      [false, true],
    );

    // The same for pull, through a proxy that deletes and prunes as each page of a pass goes by.
    const pulled = await userWith(3, 20);
    let passPages = 0;
    const proxy = await startMealsProxy(server, async (answer) => {
      if (answer.status !== 200 || answer.query.get('includeDeleted') !== 'false') return;
      passPages += 1;
      await deleteAndPrune(pulled.userId, String(pulled.ids[passPages - 1]), Date.now());
    });
    try {
      const files = pullFiles(temp.dir, 'loop');
      const run = await runCli(pullArgs({ ...server, url: proxy.url }, files), {
        env: { MEAL_EXPORT_API_KEY: pulled.key },
      });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /^meal-export: The server answered 410 resync_required again after a full resync/m);
      assert.equal(passPages, 2, 'the first pass and one resync');
    } finally {
      await proxy.close();
    }
  });

  test('pull meets the 410, rebuilds its copy from scratch, exits 0 and ends equal to `meals export`', async () => {
    const user = await userWith(4, 20);
    const files = pullFiles(temp.dir, 'stale');
    await pull(server, user.key, files);
    // A copy left alone since long before a tombstone that is pruned by now, holding the meal
    // that tombstone removed, and a made-up one.
    const state = JSON.parse(fileText(files.state)) as Record<string, unknown>;
    writeFileSync(files.state, JSON.stringify({ ...state, lastModifiedSince: '2025-01-01', cursor: null }));
    const [header, first, ...rest] = fileText(files.out).split('\r\n');
    const ghost = first?.replace(/^[^,]+/, 'ghost-meal');
    writeFileSync(files.out, [header, ghost, first, ...rest].join('\r\n'));
    await deleteAndPrune(user.userId, String(user.ids[1]), Date.now() - 15 * MINUTE);

    const run = await runCli([...pullArgs(server, files), '--json'], { env: { MEAL_EXPORT_API_KEY: user.key } });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /full resync \(410 resync_required\): rebuilding .*stale\.csv/);
    assert.equal((JSON.parse(run.stdout) as { total: number }).total, 3);
    assert.ok(!fileText(files.out).includes('ghost-meal'));
    await assertSameAsExport(server, user.userId, files.out, 'csv');
  });
});
