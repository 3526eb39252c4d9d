import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getMeals, makeMeal, newUserId, request, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import type { TestResponse } from '../support/server.js';
import { untilHeld } from '../support/metrics.js';
import { assertError, assertPage, OLD } from './http-expect.js';

// Meals-Last-Modified (docs/api.md): every 200 of /v1/meals carries the user's newest change
// of any kind as of the page's snapshot, so that a client can follow the changes after a full
// pass from exactly the next millisecond. Absent while the user has had no change.
let server: ServedApp;

before(async () => {
  server = await startInProcessServer({ adminPort: 0 });
});

after(async () => {
  await server.stop();
});

const HEADER = 'meals-last-modified';
const ISO_MS_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The header of a 200, which must be one instant as the contract writes them. */
function lastModified(response: TestResponse): string {
  assert.equal(response.status, 200, response.text);
  const value = response.headers[HEADER];
  assert.equal(typeof value, 'string', `one ${HEADER} header, got ${JSON.stringify(value)}`);
  assert.match(String(value), ISO_MS_RE);
  return String(value);
}

async function userWithMeals(count: number) {
  const userId = newUserId('lastmod');
  const { key } = await server.createKey(userId);
  const meals = Array.from({ length: count }, () => makeMeal());
  if (count > 0) await server.importMeals(userId, meals);
  return { userId, key, ids: meals.map((meal) => String(meal.id)) };
}

/** The modifiedAt of the user's newest item, tombstones included. */
async function newestModifiedAt(key: string): Promise<string> {
  const all = assertPage(await getMeals(server, key, { lastModifiedSince: OLD, includeDeleted: 'true' }));
  const newest = all.meals.at(-1)?.modifiedAt;
  assert.ok(newest !== undefined);
  return newest;
}

describe('the Meals-Last-Modified header', { concurrency: true }, () => {
  test("is the modifiedAt of the user's newest change, on every page, whatever the page holds", async () => {
    const user = await userWithMeals(3);
    // Another user's change does not move it.
    const other = await userWithMeals(0);
    await server.importMeals(other.userId, [makeMeal()]);
    const newest = await newestModifiedAt(user.key);
    const full = await getMeals(server, user.key, { lastModifiedSince: OLD });
    assert.equal(lastModified(full), newest);
    // A first page that does not reach the newest change, and a page past everything.
    assert.equal(lastModified(await getMeals(server, user.key, { lastModifiedSince: OLD, limit: '1' })), newest);
    assert.equal(lastModified(await getMeals(server, user.key, { lastModifiedSince: '2100-01-01T00:00:00Z' })), newest);
  });

  test('a deletion moves it, with or without includeDeleted', async () => {
    const user = await userWithMeals(2);
    const before = await newestModifiedAt(user.key);
    await server.deleteMeal(user.userId, String(user.ids[0]));
    const tombstoneAt = await newestModifiedAt(user.key);
    assert.ok(Date.parse(tombstoneAt) > Date.parse(before));
    const live = await getMeals(server, user.key, { lastModifiedSince: OLD });
    assert.equal(assertPage(live).count, 1);
    assert.equal(lastModified(live), tombstoneAt);
    const all = await getMeals(server, user.key, { lastModifiedSince: OLD, includeDeleted: 'true' });
    assert.equal(lastModified(all), tombstoneAt);
  });

  test('is absent for a user who has never had a change, and from error answers', async () => {
    const user = await userWithMeals(0);
    const empty = await getMeals(server, user.key, { lastModifiedSince: OLD });
    assert.equal(assertPage(empty).count, 0);
    assert.equal(empty.headers[HEADER], undefined);
    const withMeals = await userWithMeals(1);
    const refused = await getMeals(server, withMeals.key, { lastModifiedSince: 'yesterday' });
    assertError(refused, 400, 'invalid_parameter', { param: 'lastModifiedSince' });
    assert.equal(refused.headers[HEADER], undefined);
  });

  test('a HEAD carries the same value as the GET', async () => {
    const user = await userWithMeals(2);
    const path = `/v1/meals?lastModifiedSince=${OLD}`;
    const head = await request(server, { method: 'HEAD', path, key: user.key });
    assert.equal(head.raw.length, 0);
    assert.equal(lastModified(head), await newestModifiedAt(user.key));
  });

  test('a held request is answered with the value of the page it is answered with, not of its acceptance', async () => {
    const user = await userWithMeals(1);
    const first = await newestModifiedAt(user.key);
    const after = new Date(Date.parse(first) + 1).toISOString();
    const held = getMeals(server, user.key, { lastModifiedSince: after, wait: '30' });
    await untilHeld(server.adminUrl, 1);
    await server.importMeals(user.userId, [makeMeal()]);
    const answer = await held;
    assert.equal(assertPage(answer).count, 1);
    const second = await newestModifiedAt(user.key);
    assert.ok(Date.parse(second) > Date.parse(first));
    assert.equal(lastModified(answer), second);

    // Held until its wait ran out: the empty page still says where the user stands.
    const idle = await getMeals(server, user.key, {
      lastModifiedSince: new Date(Date.parse(second) + 1).toISOString(),
      wait: '1',
    });
    assert.equal(assertPage(idle).count, 0);
    assert.equal(lastModified(idle), second);
  });
});
