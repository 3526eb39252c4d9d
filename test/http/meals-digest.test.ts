import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { getMeals, makeMeal, newUserId, request, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import type { TestResponse } from '../support/server.js';
import { untilHeld } from '../support/metrics.js';
import { assertError, assertPage, OLD } from './http-expect.js';

// Meals-Digest (docs/api.md#verifying-a-copy-meals-digest): every 200 whose hasMore is false
// carries the digest of the user's live meals in the page's snapshot. Here it is computed
// apart, from what the API sends, as a client in any language would.
let server: ServedApp;

before(async () => {
  server = await startInProcessServer({ adminPort: 0 });
});

after(async () => {
  await server.stop();
});

const HEADER = 'meals-digest';

/** The digest of meals (id → modifiedAt as the API writes it), computed from the rule's text. */
function expectedDigest(meals: ReadonlyMap<string, string>): string {
  let sum = 0n;
  for (const [id, modifiedAt] of meals) {
    const hash = createHash('sha256').update(`${id}\n${modifiedAt}`, 'utf8').digest();
    sum += BigInt(`0x${hash.subarray(0, 16).toString('hex')}`);
  }
  return `count=${meals.size}, sum=${(sum % (1n << 128n)).toString(16).padStart(32, '0')}`;
}

function digestOf(response: TestResponse): string | undefined {
  assert.equal(response.status, 200, response.text);
  const value = response.headers[HEADER];
  return value === undefined ? undefined : String(value);
}

/** The user's live meals, read by a full pass of the API itself. */
async function liveMeals(key: string): Promise<Map<string, string>> {
  const page = assertPage(await getMeals(server, key, { lastModifiedSince: OLD, limit: '5000' }));
  assert.equal(page.hasMore, false);
  return new Map(page.meals.map((meal) => [String(meal.id), String(meal.modifiedAt)]));
}

async function userWithMeals(meals: readonly Record<string, unknown>[]) {
  const userId = newUserId('digest');
  const { key } = await server.createKey(userId);
  if (meals.length > 0) await server.importMeals(userId, meals);
  return { userId, key };
}

describe('the Meals-Digest header', { concurrency: true }, () => {
  test('is the digest of the live meals on every page with hasMore false, whatever its parameters', async () => {
    const meals = [makeMeal('d-ascii'), makeMeal('d-café'), makeMeal('d-☕'), makeMeal('d-食事')];
    const user = await userWithMeals(meals);
    await server.deleteMeal(user.userId, 'd-ascii');
    const expected = expectedDigest(await liveMeals(user.key));
    assert.match(expected, /^count=3, /);
    const pages = [
      await getMeals(server, user.key, { lastModifiedSince: OLD }),
      await getMeals(server, user.key, { lastModifiedSince: OLD, includeDeleted: 'true' }),
      await getMeals(server, user.key, { lastModifiedSince: '2100-01-01T00:00:00Z' }),
    ];
    for (const page of pages) assert.equal(digestOf(page), expected);
    // A page with more after it carries none; the last page of the same pass does.
    const first = await getMeals(server, user.key, { lastModifiedSince: OLD, limit: '2' });
    assert.equal(assertPage(first).hasMore, true);
    assert.equal(digestOf(first), undefined);
    const rest = await getMeals(server, user.key, {
      lastModifiedSince: OLD,
      limit: '2',
      cursor: String(assertPage(first).nextCursor),
    });
    assert.equal(assertPage(rest).hasMore, false);
    assert.equal(digestOf(rest), expected);
  });

  test('follows creates, changes and deletions, and is zero for a user without meals', async () => {
    const user = await userWithMeals([]);
    assert.equal(
      digestOf(await getMeals(server, user.key, { lastModifiedSince: OLD })),
      `count=0, sum=${'0'.repeat(32)}`,
    );
    const meal = makeMeal();
    await server.importMeals(user.userId, [meal, makeMeal()]);
    const created = expectedDigest(await liveMeals(user.key));
    await server.importMeals(user.userId, [{ ...meal, title: 'changed' }]);
    const changed = expectedDigest(await liveMeals(user.key));
    assert.notEqual(changed, created);
    assert.equal(digestOf(await getMeals(server, user.key, { lastModifiedSince: OLD })), changed);
    await server.deleteMeal(user.userId, String(meal.id));
    const deleted = expectedDigest(await liveMeals(user.key));
    assert.match(deleted, /^count=1, /);
    assert.equal(digestOf(await getMeals(server, user.key, { lastModifiedSince: OLD })), deleted);
  });

  test('a HEAD carries the same value as the GET; an error answer carries none', async () => {
    const user = await userWithMeals([makeMeal(), makeMeal()]);
    const head = await request(server, { method: 'HEAD', path: `/v1/meals?lastModifiedSince=${OLD}`, key: user.key });
    assert.equal(head.raw.length, 0);
    assert.equal(digestOf(head), expectedDigest(await liveMeals(user.key)));
    const refused = await getMeals(server, user.key, { lastModifiedSince: 'yesterday' });
    assertError(refused, 400, 'invalid_parameter', { param: 'lastModifiedSince' });
    assert.equal(refused.headers[HEADER], undefined);
  });

  test('a held request is answered with the digest of the page it is answered with', async () => {
    const user = await userWithMeals([makeMeal()]);
    const [modifiedAt] = [...(await liveMeals(user.key)).values()];
    const held = getMeals(server, user.key, {
      lastModifiedSince: new Date(Date.parse(String(modifiedAt)) + 1).toISOString(),
      wait: '30',
    });
    await untilHeld(server.adminUrl, 1);
    await server.importMeals(user.userId, [makeMeal()]);
    const answer = await held;
    assert.equal(assertPage(answer).count, 1);
    assert.equal(digestOf(answer), expectedDigest(await liveMeals(user.key)));
  });
});
