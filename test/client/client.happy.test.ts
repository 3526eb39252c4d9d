import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  createMealExportClient,
  isTombstone,
  type MealExportClient,
  type MealFeedItem,
  type SyncStep,
  type WaitEvent,
} from '../../src/client/index.js';
import { makeMeal, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { cli } from './pull-harness.js';

// One server for the file, with no interval: every test has its own user and client.
let server: ServedApp;
let ca: string;
const clients: MealExportClient[] = [];

before(async () => {
  server = await startInProcessServer();
  ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
});

after(async () => {
  for (const client of clients) client.close();
  await server.stop();
});

async function userWith(count: number) {
  const userId = newUserId('sdk');
  const { key } = await server.createKey(userId);
  const meals = Array.from({ length: count }, () => makeMeal());
  if (count > 0) await server.importMeals(userId, meals);
  return { userId, key, ids: meals.map((m) => String(m.id)) };
}

function clientFor(key: string, extra: { onWait?: (event: WaitEvent) => void; minIntervalMs?: number } = {}) {
  const client = createMealExportClient({ baseUrl: server.url, apiKey: key, ca, ...extra });
  clients.push(client);
  return client;
}

async function collect(steps: AsyncIterable<SyncStep>): Promise<SyncStep[]> {
  const all: SyncStep[] = [];
  for await (const step of steps) all.push(step);
  return all;
}

test('listMeals over TLS, trusting the server certificate given as ca, returns the typed envelope', async () => {
  const user = await userWith(3);
  const page = await clientFor(user.key).listMeals({ lastModifiedSince: '2020-01-01', limit: 2 });
  assert.deepEqual(Object.keys(page), ['ok', 'userId', 'lastModifiedSince', 'count', 'meals', 'hasMore', 'nextCursor']);
  assert.equal(page.userId, user.userId);
  assert.equal(page.lastModifiedSince, '2020-01-01T00:00:00.000Z');
  assert.equal(page.count, 2);
  assert.equal(page.hasMore, true);
  assert.deepEqual(
    page.meals.map((m) => m.id),
    user.ids.slice(0, 2),
  );
  assert.equal(typeof page.nextCursor, 'string');
});

test("listMealsWithHeaders gives the page with the user's newest change (Meals-Last-Modified), null for a user without one", async () => {
  const user = await userWith(3);
  const client = clientFor(user.key);
  const { page, mealsLastModified } = await client.listMealsWithHeaders({ lastModifiedSince: '2020-01-01', limit: 1 });
  assert.deepEqual(
    page.meals.map((m) => m.id),
    user.ids.slice(0, 1),
  );
  // The newest change of the whole feed, not the page's last item.
  const all = await client.listMeals({ lastModifiedSince: '2020-01-01' });
  assert.equal(mealsLastModified, all.meals.at(-1)?.modifiedAt);
  assert.notEqual(mealsLastModified, page.meals[0]?.modifiedAt);

  const none = await userWith(0);
  const empty = await clientFor(none.key).listMealsWithHeaders({ lastModifiedSince: '2020-01-01' });
  assert.deepEqual(empty, {
    page: { ...empty.page, count: 0, meals: [] },
    mealsLastModified: null,
    mealsDigest: { count: 0, sum: 0n },
  });
});

test('the ca may be given as bytes (a Uint8Array, not only a Buffer or a string)', async () => {
  const user = await userWith(1);
  const client = createMealExportClient({ baseUrl: server.url, apiKey: user.key, ca: new TextEncoder().encode(ca) });
  clients.push(client);
  assert.deepEqual(
    (await client.listMeals({ lastModifiedSince: '2020-01-01' })).meals.map((m) => m.id),
    user.ids,
  );
});

test('listMeals with includeDeleted returns tombstones as { id, modifiedAt, deleted: true }', async () => {
  const user = await userWith(2);
  await cli('meals', 'delete', '--user', user.userId, String(user.ids[0]), '--db', server.db);
  const since = new Date(Date.now() - 86_400_000);
  const page = await clientFor(user.key).listMeals({ lastModifiedSince: since, includeDeleted: true });
  const [live, tombstone] = page.meals as [MealFeedItem, MealFeedItem];
  assert.equal(isTombstone(live), false);
  assert.equal(live.deleted, false);
  assert.equal(isTombstone(tombstone), true);
  assert.deepEqual(Object.keys(tombstone), ['id', 'modifiedAt', 'deleted']);
});

test('sync pages a first pass to the end, then a sync from the saved position yields only what changed since', async () => {
  const user = await userWith(5);
  const client = clientFor(user.key);
  const first = await collect(client.sync({ limit: 2 }));
  // A first sync is a full pass without tombstones (3 pages), then the changes, tombstones
  // included, since the newest change its first answer saw (Meals-Last-Modified): none.
  assert.deepEqual(
    first.map((s) => s.page.count),
    [2, 2, 1, 0],
  );
  assert.ok(first.slice(0, 3).every((s) => s.page.meals.every((m) => m.deleted === undefined)));
  assert.ok(first.every((s) => !s.resynced));
  const newest = first[2]?.page.meals.at(-1)?.modifiedAt ?? '';
  const followSince = new Date(Date.parse(newest) + 1).toISOString();
  assert.equal(first[1]?.position.followSince, followSince, 'a position saved mid-pass says where following resumes');
  assert.equal(first[3]?.page.lastModifiedSince, followSince);
  const last = first.at(-1)?.position;
  assert.deepEqual(last, { lastModifiedSince: followSince, cursor: null, followSince: null });

  await server.importMeals(user.userId, [makeMeal(user.ids[1], { title: 'new title' }), makeMeal('sdk-new')]);
  await cli('meals', 'delete', '--user', user.userId, String(user.ids[0]), '--db', server.db);
  const second = await collect(client.sync({ from: last, limit: 2 }));
  const items = second.flatMap((s) => s.page.meals);
  assert.deepEqual(
    items.map((m) => [m.id, m.deleted]),
    [
      [user.ids[1], false],
      ['sdk-new', false],
      [user.ids[0], true],
    ],
  );
  assert.equal(second.at(-1)?.page.hasMore, false);
});

test('sync resumed from a position saved mid-pass continues the pass with no duplicate and no gap', async () => {
  const user = await userWith(5);
  const client = clientFor(user.key);
  let saved: SyncStep['position'] | undefined;
  const seen: string[] = [];
  for await (const step of client.sync({ limit: 2 })) {
    seen.push(...step.page.meals.map((m) => m.id));
    saved = step.position;
    break; // a crash after the first page
  }
  assert.ok(saved !== undefined);
  const rest = await collect(client.sync({ from: saved, limit: 2 }));
  // The pass's pages come without `deleted` (no tombstones asked); the overlap after it, with.
  const passIds = rest
    .flatMap((step) => step.page.meals)
    .filter((meal) => meal.deleted === undefined)
    .map((meal) => meal.id);
  seen.push(...passIds);
  assert.deepEqual(seen, user.ids);
});

test('keeps the interval by itself, measured from the previous answer, and says so before waiting', async () => {
  const user = await userWith(1);
  const waits: WaitEvent[] = [];
  const client = clientFor(user.key, { minIntervalMs: 300, onWait: (event) => waits.push(event) });
  const started = Date.now();
  await client.listMeals({ lastModifiedSince: '2020-01-01' });
  await client.listMeals({ lastModifiedSince: '2020-01-01' });
  assert.ok(Date.now() - started >= 300);
  assert.equal(waits.length, 1);
  assert.equal(waits[0]?.reason, 'interval');
  assert.ok((waits[0]?.ms ?? 0) > 200 && (waits[0]?.ms ?? 0) <= 300);
});

test('is importable as meal-export/client, from the package exports', async () => {
  const entry = 'meal-export/client';
  const sdk = (await import(entry)) as Record<string, unknown>;
  assert.equal(typeof sdk.createMealExportClient, 'function');
  assert.equal(typeof sdk.MealExportHttpError, 'function');
});
