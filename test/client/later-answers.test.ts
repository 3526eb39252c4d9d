import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  createMealExportClient,
  createMealsDigest,
  isTombstone,
  type Meal,
  MealExportAuthError,
  MealExportBadRequestError,
  type MealExportClient,
  type MealFeedItem,
  type SyncPosition,
} from '../../src/client/index.js';
import { startInProcessServer } from '../support/in-process-server.js';
import {
  LATER_FIRST_FIELD,
  LATER_LAST_FIELD,
  type LaterServiceProxy,
  startLaterServiceProxy,
} from '../support/later-service-proxy.js';
import { makeMeal, newUserId, type ServedApp } from '../support/server.js';

// The SDK against answers as a later /v1 may send them (docs/api.md#compatibility): every
// object with fields it does not know and every answer with headers it does not know, from
// the real service behind a proxy that adds them. Each test compares with the same call made
// to the service directly, so what the SDK hands back is the same but for the added fields.
let server: ServedApp;
let proxy: LaterServiceProxy;
let ca: string;
const clients: MealExportClient[] = [];

before(async () => {
  server = await startInProcessServer();
  proxy = await startLaterServiceProxy(server);
  ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
});

after(async () => {
  for (const client of clients) client.close();
  await proxy.close();
  await server.stop();
});

function clientOf(baseUrl: string, apiKey: string): MealExportClient {
  const client = createMealExportClient({ baseUrl, apiKey, ca, minIntervalMs: 0 });
  clients.push(client);
  return client;
}

async function userWith(count: number) {
  const userId = newUserId('later');
  const { key } = await server.createKey(userId);
  const meals = Array.from({ length: count }, () => makeMeal());
  if (count > 0) await server.importMeals(userId, meals);
  return { userId, later: clientOf(proxy.url, key), today: clientOf(server.url, key) };
}

/** An object as today's /v1 sends it: the proxy's two fields taken out, at every depth. */
function withoutLaterFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLaterFields);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name]) => name !== LATER_FIRST_FIELD && name !== LATER_LAST_FIELD)
      .map(([name, field]) => [name, withoutLaterFields(field)]),
  );
}

test('listMeals hands back the page and its meals as today, the fields it does not know left as they came', async () => {
  const { later, today } = await userWith(3);
  const query = { lastModifiedSince: '2020-01-01', limit: 2, includeDeleted: true };
  const before = proxy.extended();
  const page = await later.listMeals(query);
  assert.ok(proxy.extended() > before, 'the answer was extended');
  assert.equal((page as unknown as Record<string, unknown>)[LATER_FIRST_FIELD], 2);
  assert.deepEqual(withoutLaterFields(page), await today.listMeals(query));
  assert.equal(page.count, 2);
  assert.equal(page.hasMore, true);
});

test('sync() pages, follows and verifies each Meals-Digest through meals, tombstones and pages with unknown fields', async () => {
  const { userId, later } = await userWith(5);
  const copy = new Map<string, Meal>();
  const digest = createMealsDigest();
  let position: SyncPosition | undefined;
  const apply = (item: MealFeedItem) => {
    const held = copy.get(item.id);
    if (held !== undefined) digest.remove(held.id, held.modifiedAt);
    copy.delete(item.id);
    if (isTombstone(item)) return;
    copy.set(item.id, item);
    digest.add(item.id, item.modifiedAt);
  };
  let verified = 0;
  const syncOnce = async () => {
    for await (const step of later.sync({ from: position, limit: 2 })) {
      for (const item of step.page.meals) apply(item);
      position = step.position;
      if (step.digest !== null) {
        assert.ok(digest.equals(step.digest), 'the copy is the server’s');
        verified += 1;
      }
    }
  };
  await syncOnce();
  const [first, second] = [...copy.keys()];
  assert.ok(first !== undefined && second !== undefined);
  await server.deleteMeal(userId, first);
  await server.importMeals(userId, [makeMeal(second, { title: 'changed' }), makeMeal()]);
  await syncOnce();
  assert.equal(verified, 2, 'both syncs ended on a verified step');
  assert.equal(copy.size, 5);
  assert.ok(!copy.has(first));
  assert.equal(copy.get(second)?.title, 'changed');
});

test('keyInfo hands back the key and its limits as today, whatever fields the answer adds', async () => {
  const { userId, later, today } = await userWith(0);
  const [info, direct] = [await later.keyInfo(), await today.keyInfo()];
  assert.equal((info.key as unknown as Record<string, unknown>)[LATER_LAST_FIELD] !== undefined, true);
  assert.deepEqual(withoutLaterFields(info.key), direct.key);
  assert.equal(info.key.userId, userId);
  assert.equal(info.limits.remainingToday, direct.limits.remainingToday);
  assert.equal(typeof info.limits.nextAcceptedAt, 'string');
});

test('an error body with fields the SDK does not know is still its typed error, with its code and param', async () => {
  const { later } = await userWith(1);
  await assert.rejects(later.listMeals({ lastModifiedSince: '2020-01-01', cursor: 'not-a-cursor' }), (error) => {
    assert.ok(error instanceof MealExportBadRequestError);
    assert.equal(error.status, 400);
    assert.equal(error.param, 'cursor');
    assert.equal(typeof error.serverMessage, 'string');
    return true;
  });
  const stranger = clientOf(proxy.url, `mxk_${'0'.repeat(49)}`);
  await assert.rejects(stranger.listMeals({ lastModifiedSince: '2020-01-01' }), (error) => {
    assert.ok(error instanceof MealExportAuthError);
    assert.equal(error.code, 'invalid_api_key');
    return true;
  });
});
