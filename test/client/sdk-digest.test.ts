import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  createMealExportClient,
  createMealsDigest,
  formatMealsDigest,
  isTombstone,
  type Meal,
  type MealExportClient,
  type RunningMealsDigest,
  type SyncPosition,
  type SyncStep,
} from '../../src/client/index.js';
import { getMeals, makeMeal, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';

// The SDK's digest against the server's Meals-Digest (docs/api.md#verifying-a-copy-meals-digest),
// over TLS, from a copy kept the way docs/sdk.md shows.
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

async function userWith(meals: readonly Record<string, unknown>[]) {
  const userId = newUserId('sdkdigest');
  const { key } = await server.createKey(userId);
  if (meals.length > 0) await server.importMeals(userId, meals);
  const client = createMealExportClient({ baseUrl: server.url, apiKey: key, ca, minIntervalMs: 0 });
  clients.push(client);
  return { userId, key, client };
}

/** A copy by id with its digest beside it, moved by every meal it adds, replaces or removes. */
function keptCopy() {
  const meals = new Map<string, Meal>();
  const digest: RunningMealsDigest = createMealsDigest();
  let position: SyncPosition | undefined;
  const apply = (step: SyncStep) => {
    for (const item of step.page.meals) {
      const old = meals.get(item.id);
      if (old !== undefined) digest.remove(old.id, old.modifiedAt);
      meals.delete(item.id);
      if (isTombstone(item)) continue;
      meals.set(item.id, item);
      digest.add(item.id, item.modifiedAt);
    }
    position = step.position;
  };
  /** Syncs from where it stopped; returns the steps that carried a digest. */
  const sync = async (client: MealExportClient, limit = 2) => {
    const checked: SyncStep[] = [];
    for await (const step of client.sync({ from: position, limit })) {
      apply(step);
      if (step.digest !== null) checked.push(step);
    }
    return checked;
  };
  return { meals, digest, sync };
}

/** The raw header of a page with hasMore false, as the server wrote it. */
async function rawHeader(key: string): Promise<string> {
  const response = await getMeals(server, key, { lastModifiedSince: '1970-01-01', limit: '5000' });
  assert.equal(response.status, 200, response.text);
  return String(response.headers['meals-digest']);
}

test("a copy's digest equals the server's Meals-Digest after creates, changes and deletes, a non-ASCII id included", async () => {
  const { userId, key, client } = await userWith([makeMeal('café-☕'), makeMeal('食事-1'), makeMeal(), makeMeal()]);
  const copy = keptCopy();
  const rounds: (() => Promise<unknown>)[] = [
    async () => undefined,
    () => server.importMeals(userId, [makeMeal('café-☕', { title: 'changed' }), makeMeal('ü-new')]),
    () => server.deleteMeal(userId, '食事-1'),
    async () => {
      await server.deleteMeal(userId, 'café-☕');
      await server.importMeals(userId, [makeMeal('café-☕', { title: 'back' })]);
    },
  ];
  for (const [round, change] of rounds.entries()) {
    await change();
    const checked = await copy.sync(client);
    assert.equal(checked.length, 1, `round ${round}: one caught-up step`);
    const header = checked[0]?.digest;
    assert.ok(header !== null && header !== undefined);
    assert.ok(copy.digest.equals(header), `round ${round}: ${copy.digest} is ${formatMealsDigest(header)}`);
    assert.equal(copy.digest.value.count, copy.meals.size);
    assert.equal(String(copy.digest), await rawHeader(key), `round ${round}: the header's own text`);
  }
  assert.ok(copy.meals.has('café-☕') && copy.meals.has('ü-new') && !copy.meals.has('食事-1'));
  assert.equal(copy.meals.size, 4);
});

test('a copy that lost a meal, or holds one the server does not, no longer equals the header', async () => {
  const { client } = await userWith([makeMeal(), makeMeal(), makeMeal()]);
  const copy = keptCopy();
  const [step] = await copy.sync(client);
  const header = step?.digest;
  assert.ok(header !== null && header !== undefined && copy.digest.equals(header));
  const lost = [...copy.meals.values()][1];
  assert.ok(lost !== undefined);
  copy.digest.remove(lost.id, lost.modifiedAt);
  assert.equal(copy.digest.equals(header), false);
  copy.digest.add(lost.id, lost.modifiedAt);
  copy.digest.add('made-up', '2025-03-01T07:30:00.000Z');
  assert.equal(copy.digest.equals(header), false);
  // A Date gives the API's text; another spelling of an instant is refused rather than hashed.
  copy.digest.remove('made-up', new Date('2025-03-01T07:30:00.000Z'));
  assert.ok(copy.digest.equals(header));
  assert.throws(() => copy.digest.add('x', '2025-03-01T07:30:00Z'), RangeError);
});

test('sync() carries the digest on the caught-up step only: not on pages with more, nor at the end of the full pass', async () => {
  const { client } = await userWith([makeMeal(), makeMeal(), makeMeal(), makeMeal(), makeMeal()]);
  const steps: SyncStep[] = [];
  for await (const step of client.sync({ limit: 2 })) steps.push(step);
  // The pass: 2 + 2 + 1 (its end, hasMore false), then the follow's one page.
  assert.deepEqual(
    steps.map((s) => [s.page.hasMore, s.digest === null]),
    [
      [true, true],
      [true, true],
      [false, true],
      [false, false],
    ],
  );
  assert.equal(steps.at(-1)?.digest?.count, 5);

  const withoutTombstones: SyncStep[] = [];
  for await (const step of client.sync({ since: '1970-01-01', includeDeleted: false })) withoutTombstones.push(step);
  assert.deepEqual(
    withoutTombstones.map((s) => s.digest),
    [null],
  );
});

test('listMealsWithHeaders answers the Meals-Digest of a page with hasMore false, null for one with more', async () => {
  const { key, client } = await userWith([makeMeal(), makeMeal()]);
  const more = await client.listMealsWithHeaders({ lastModifiedSince: '1970-01-01', limit: 1 });
  assert.equal(more.page.hasMore, true);
  assert.equal(more.mealsDigest, null);
  const last = await client.listMealsWithHeaders({ lastModifiedSince: '1970-01-01' });
  assert.equal(last.mealsDigest?.count, 2);
  assert.equal(last.mealsDigest === null ? '' : formatMealsDigest(last.mealsDigest), await rawHeader(key));

  const { client: empty } = await userWith([]);
  const none = await empty.listMealsWithHeaders({ lastModifiedSince: '1970-01-01' });
  assert.deepEqual(none.mealsDigest, { count: 0, sum: 0n });
});
