import { NO_NUTRIENTS } from '../support/contract.js';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getMeals, makeMeal, newUserId, request, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import {
  type ApiMeal,
  assertError,
  assertFeedOrder,
  assertPage,
  ISO_MS_RE,
  idsOf,
  isoAgo,
  MEAL_FIELDS,
  OLD,
} from './http-expect.js';

// One server for the file: no interval, no practical daily limit. Every test has its own user.
let server: ServedApp;

before(async () => {
  server = await startInProcessServer();
});

after(async () => {
  await server.stop();
});

/** A user with a key and the given meals imported (one import: increasing modifiedAt in file order). */
async function userWithMeals(meals: readonly Record<string, unknown>[], userId = newUserId()) {
  const { key } = await server.createKey(userId);
  if (meals.length > 0) await server.importMeals(userId, meals);
  return { userId, key };
}

/** An import record, whose id the tests need as a string. */
type ImportedMeal = Record<string, unknown> & { readonly id: string };

const newMeal = (): ImportedMeal => makeMeal() as ImportedMeal;

function mealsOf(count: number): ImportedMeal[] {
  return Array.from({ length: count }, newMeal);
}

/** The 14 fields a client sends on import, in the order the API returns them. */
function importedFields(meal: ApiMeal): Record<string, unknown> {
  return Object.fromEntries(MEAL_FIELDS.filter((f) => f !== 'modifiedAt').map((f) => [f, meal[f]]));
}

test('a page has the seven envelope fields and each meal the fifteen Meal fields in contract order, with the values as imported', async () => {
  const full = makeMeal(undefined, { title: 'Café crème — 🍰', description: 'line one\nline "two"', type: 'dinner' });
  const empty = makeMeal(undefined, {
    title: '',
    description: '',
    type: 'snack',
    ...NO_NUTRIENTS,
  });
  const edgeNumbers = makeMeal(undefined, {
    caloriesTotal: 0,
    proteins_g: 0.000001,
    fats_g: 123456789.125,
    carbs_g: 1,
    date: '2025-03-01T12:34:56.789Z',
  });
  const { userId, key } = await userWithMeals([full, empty, edgeNumbers]);

  const page = assertPage(await getMeals(server, key, { lastModifiedSince: OLD }), userId);
  assert.equal(page.count, 3);
  assert.equal(page.hasMore, false);
  assert.deepEqual(idsOf(page), [full.id, empty.id, edgeNumbers.id], 'file order: each record a later modifiedAt');
  page.meals.forEach((meal, i) => {
    assert.deepEqual(Object.keys(meal), MEAL_FIELDS, 'the fifteen fields, in contract order, no "deleted"');
    assert.deepEqual(importedFields(meal), [full, empty, edgeNumbers][i], 'the values as imported');
    assert.match(meal.modifiedAt, ISO_MS_RE);
    assert.ok(Math.abs(Date.parse(meal.modifiedAt) - Date.now()) < 60_000, 'modifiedAt is the time of the write');
  });
  assert.equal(page.meals[1]?.title, '', 'an empty text is "", never null');
  assert.equal(page.meals[1]?.caloriesTotal, null, 'an unknown number is null');
  assert.equal(page.meals[2]?.caloriesTotal, 0, 'zero stays zero, not null');
});

test('a meal eaten at a time written with an offset comes back as YYYY-MM-DDTHH:mm:ss.sssZ in UTC', async () => {
  const meal = makeMeal(undefined, { date: '2025-03-01T12:00:00+02:00', utcOffset: '+02:00' });
  const { key } = await userWithMeals([meal]);
  const page = assertPage(await getMeals(server, key, { lastModifiedSince: OLD }));
  assert.equal(page.meals[0]?.date, '2025-03-01T10:00:00.000Z');
});

test('the userId in the envelope is the key owner exactly as written, spaces and non-ASCII included', async () => {
  const userId = newUserId('Zoë "the" user');
  const { key } = await userWithMeals([], userId);
  const page = assertPage(await getMeals(server, key, { lastModifiedSince: OLD }), userId);
  assert.equal(page.count, 0);
  assert.deepEqual(page.meals, []);
  assert.equal(page.hasMore, false);
  assert.equal(page.nextCursor, null);
});

test('lastModifiedSince is echoed normalised to YYYY-MM-DDTHH:mm:ss.sssZ from offsets, bare dates and up to 9 fraction digits', async () => {
  const { key } = await userWithMeals([]);
  const cases: [sent: string, echoed: string][] = [
    ['2025-06-15', '2025-06-15T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2025-06-15T10:20:30Z', '2025-06-15T10:20:30.000Z'],
    ['2025-06-15T10:20:30', '2025-06-15T10:20:30.000Z'],
    ['2025-06-15T10:20:30.5Z', '2025-06-15T10:20:30.500Z'],
    ['2025-06-15T10:20:30.12Z', '2025-06-15T10:20:30.120Z'],
    ['2025-06-15T10:20:30.123456789Z', '2025-06-15T10:20:30.123Z'],
    ['2025-06-15T10:20:30.999999999Z', '2025-06-15T10:20:30.999Z'],
    ['2025-06-15T10:20:30-05:30', '2025-06-15T15:50:30.000Z'],
    ['2025-06-15T00:30:00+01:00', '2025-06-14T23:30:00.000Z'],
    ['2025-12-31T23:59:59.9999+00:00', '2025-12-31T23:59:59.999Z'],
    ['2025-06-15T10:20:30.1234+02:00', '2025-06-15T08:20:30.123Z'],
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
  ];
  for (const [sent, echoed] of cases) {
    const page = assertPage(await getMeals(server, key, { lastModifiedSince: sent }));
    assert.equal(page.lastModifiedSince, echoed, `lastModifiedSince=${sent}`);
  }
});

test('lastModifiedSince includes the meal modified at that very millisecond, however the instant is written', async () => {
  const meals = mealsOf(3);
  const { key } = await userWithMeals(meals);
  const all = assertPage(await getMeals(server, key, { lastModifiedSince: OLD }));
  const pivot = all.meals[1]!.modifiedAt; // the second of three strictly increasing instants
  const pivotMs = Date.parse(pivot);
  const plusTwo = new Date(pivotMs + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
  const writings = [pivot, pivot.replace('Z', '999999Z'), plusTwo];
  for (const since of writings) {
    const page = assertPage(await getMeals(server, key, { lastModifiedSince: since }));
    assert.equal(page.lastModifiedSince, pivot, `lastModifiedSince=${since}`);
    assert.deepEqual(idsOf(page), [meals[1]!.id, meals[2]!.id], `lastModifiedSince=${since} is inclusive`);
  }
  const later = assertPage(
    await getMeals(server, key, {
      lastModifiedSince: new Date(Date.parse(all.meals[2]!.modifiedAt) + 1).toISOString(),
    }),
  );
  assert.equal(later.count, 0, 'one millisecond after the last change: nothing');
});

test('paging with limit walks every meal once in (modifiedAt, id) order; hasMore is false on the last page and nextCursor null after it', async () => {
  const meals = mealsOf(7);
  const { key } = await userWithMeals(meals);
  const seen: string[] = [];
  const shapes: [number, boolean][] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 4; i += 1) {
    const query: Record<string, string> = { lastModifiedSince: OLD, limit: '2' };
    if (cursor !== undefined) query.cursor = cursor;
    const page = assertPage(await getMeals(server, key, query));
    shapes.push([page.count, page.hasMore]);
    seen.push(...idsOf(page));
    assert.equal(typeof page.nextCursor, 'string');
    cursor = page.nextCursor ?? undefined;
  }
  assert.deepEqual(shapes, [
    [2, true],
    [2, true],
    [2, true],
    [1, false],
  ]);
  assert.deepEqual(
    seen,
    meals.map((m) => m.id),
  );
  const end = assertPage(await getMeals(server, key, { lastModifiedSince: OLD, limit: '2', cursor: cursor! }));
  assert.deepEqual([end.count, end.hasMore, end.nextCursor], [0, false, null]);

  const whole = assertPage(await getMeals(server, key, { lastModifiedSince: OLD, limit: '0007' }));
  assert.equal(whole.count, 7, 'limit=0007: leading zeros are allowed');
  assert.equal(whole.hasMore, false, 'a page that ends exactly at the last meal has hasMore false');
  assertFeedOrder(whole.meals);
  const exact = assertPage(await getMeals(server, key, { lastModifiedSince: OLD, limit: '05000' }));
  assert.equal(exact.count, 7);
});

test('an empty page gives nextCursor null, and the cursor the client kept still finds the meals written later', async () => {
  const first = mealsOf(2);
  const { userId, key } = await userWithMeals(first);
  const page = assertPage(await getMeals(server, key, { lastModifiedSince: OLD }));
  const kept = page.nextCursor!;
  const empty = assertPage(await getMeals(server, key, { lastModifiedSince: OLD, cursor: kept }));
  assert.deepEqual([empty.count, empty.hasMore, empty.nextCursor], [0, false, null]);

  const later = mealsOf(2);
  await server.importMeals(userId, later);
  const resumed = assertPage(await getMeals(server, key, { lastModifiedSince: OLD, cursor: kept }));
  assert.deepEqual(
    idsOf(resumed),
    later.map((m) => m.id),
  );
});

test('a follower resuming from its cursor sees every later create, change and delete exactly once, in write order', async () => {
  const [a, b, c, d] = mealsOf(4);
  const { userId, key } = await userWithMeals([a!, b!, c!, d!]);
  // The first sync starts an hour ago; resumed calls keep sending that same instant, as the
  // contract tells a follower to.
  const since = isoAgo(3_600_000);
  const synced = assertPage(
    await getMeals(server, key, { lastModifiedSince: since, includeDeleted: 'true', limit: '3' }),
  );
  const rest = assertPage(
    await getMeals(server, key, {
      lastModifiedSince: since,
      includeDeleted: 'true',
      limit: '3',
      cursor: synced.nextCursor!,
    }),
  );
  assert.equal(rest.hasMore, false);
  const cursor = rest.nextCursor!;

  // Writes after the cursor: change b, delete c, change b again, create e, delete a.
  await server.importMeals(userId, [{ ...b, title: 'first change' }]);
  await deleteMeal(userId, c!.id);
  await server.importMeals(userId, [{ ...b, title: 'second change', caloriesTotal: null }]);
  const e = newMeal();
  await server.importMeals(userId, [e]);
  await deleteMeal(userId, a!.id);

  const changes: ApiMeal[] = [];
  let next: string | null = cursor;
  for (let guard = 0; next !== null && guard < 10; guard += 1) {
    const page = assertPage(
      await getMeals(server, key, { lastModifiedSince: since, includeDeleted: 'true', limit: '1', cursor: next }),
    );
    changes.push(...page.meals);
    next = page.nextCursor;
  }
  assertFeedOrder(changes);
  assert.deepEqual(
    changes.map((m) => [m.id, m.deleted]),
    [
      [c!.id, true],
      [b!.id, false],
      [e.id, false],
      [a!.id, true],
    ],
    'each changed meal once, at its latest change',
  );
  assert.equal(changes[1]?.title, 'second change');
  assert.equal(changes[1]?.caloriesTotal, null);
  assert.deepEqual(Object.keys(changes[0]!), ['id', 'modifiedAt', 'deleted'], 'a tombstone is id, modifiedAt, deleted');
  assert.deepEqual(Object.keys(changes[1]!), [...MEAL_FIELDS, 'deleted'], 'a live meal has deleted: false last');

  const live = assertPage(await getMeals(server, key, { lastModifiedSince: since, cursor }));
  assert.deepEqual(idsOf(live), [b!.id, e.id], 'without includeDeleted the tombstones are left out');
  for (const m of live.meals) assert.deepEqual(Object.keys(m), MEAL_FIELDS, 'and no item has "deleted"');
});

test('a deleted meal imported again comes back after the cursor as a live meal with deleted: false', async () => {
  const meal = newMeal();
  const { userId, key } = await userWithMeals([meal]);
  await deleteMeal(userId, meal.id);
  const since = isoAgo(3_600_000);
  const before = assertPage(await getMeals(server, key, { lastModifiedSince: since, includeDeleted: 'true' }));
  assert.deepEqual(before.meals, [{ id: meal.id, modifiedAt: before.meals[0]?.modifiedAt, deleted: true }]);
  assert.equal(assertPage(await getMeals(server, key, { lastModifiedSince: OLD })).count, 0);

  await server.importMeals(userId, [meal]);
  const after = assertPage(
    await getMeals(server, key, { lastModifiedSince: since, includeDeleted: 'true', cursor: before.nextCursor! }),
  );
  assert.equal(after.count, 1);
  assert.equal(after.meals[0]?.deleted, false);
  assert.deepEqual(importedFields(after.meals[0]!), meal);
  assert.ok(after.meals[0]!.modifiedAt > before.meals[0]!.modifiedAt);
});

test('includeDeleted=false is the same as leaving it out', async () => {
  const [a, b] = mealsOf(2);
  const { userId, key } = await userWithMeals([a!, b!]);
  await deleteMeal(userId, a!.id);
  const omitted = assertPage(await getMeals(server, key, { lastModifiedSince: OLD }));
  const explicit = assertPage(await getMeals(server, key, { lastModifiedSince: OLD, includeDeleted: 'false' }));
  assert.deepEqual(explicit.meals, omitted.meals);
  assert.deepEqual(idsOf(explicit), [b!.id]);
});

test('HEAD answers like GET with no body, and counts against the daily quota', async () => {
  const { key } = await userWithMeals(mealsOf(2));
  const path = `/v1/meals?lastModifiedSince=${OLD}`;
  const get1 = await request(server, { path, key });
  const head = await request(server, { method: 'HEAD', path, key });
  const get2 = await request(server, { path, key });
  assert.equal(head.status, 200);
  assert.equal(head.raw.length, 0, 'HEAD has no body');
  for (const name of ['content-type', 'cache-control', 'x-content-type-options', 'strict-transport-security']) {
    assert.equal(head.headers[name], get1.headers[name], name);
  }
  assert.equal(head.headers['ratelimit-policy'], get1.headers['ratelimit-policy']);
  const remaining = [get1, head, get2].map((r) => Number(r.headers['x-ratelimit-remaining']));
  assert.deepEqual(remaining, [remaining[0]!, remaining[0]! - 1, remaining[0]! - 2], 'HEAD is counted like GET');

  const bad = await request(server, { method: 'HEAD', path: '/v1/meals?lastModifiedSince=nope', key });
  assert.equal(bad.status, 400, 'a HEAD with a bad parameter is refused like GET');
  assert.equal(bad.raw.length, 0);
  assert.equal(bad.headers['content-type'], 'application/json; charset=utf-8');
});

test('bodies over 1 KiB are sent gzip or br when Accept-Encoding asks, identical once decoded', async () => {
  const { key } = await userWithMeals(mealsOf(8));
  const path = `/v1/meals?lastModifiedSince=${OLD}`;
  const plain = await request(server, { path, key });
  assert.ok(plain.raw.length > 1024, `the page is ${plain.raw.length} bytes`);
  assert.equal(plain.headers['content-encoding'], undefined, 'nothing asked, nothing compressed');
  for (const [asked, expected] of [
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['br;q=0, gzip', 'gzip'],
  ] as const) {
    const r = await request(server, { path, key, headers: { 'accept-encoding': asked } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-encoding'], expected, `Accept-Encoding: ${asked}`);
    assert.ok(r.raw.length < plain.raw.length, 'the compressed body is smaller');
    assert.equal(r.text, plain.text, 'decoded, the same body');
    assertPage(r);
  }
  const identity = await request(server, { path, key, headers: { 'accept-encoding': 'identity' } });
  assert.equal(identity.headers['content-encoding'], undefined);
  assert.equal(identity.text, plain.text);
});

test('a body of 1023 bytes is sent as it is and one of 1025 bytes is compressed', async () => {
  // One meal whose title is padded so that the page is exactly the size wanted: every other
  // part of the page (ids, instants, cursor) has a fixed length.
  const userId = newUserId();
  const { key } = await server.createKey(userId);
  const meal = makeMeal(undefined, { title: 'x' });
  await server.importMeals(userId, [meal]);
  const path = `/v1/meals?lastModifiedSince=${OLD}`;
  const base = (await request(server, { path, key })).raw.length;
  for (const size of [1023, 1025]) {
    await server.importMeals(userId, [{ ...meal, title: 'x'.repeat(1 + size - base) }]);
    const plain = await request(server, { path, key });
    assert.equal(plain.raw.length, size, 'the page has the size wanted');
    const asked = await request(server, { path, key, headers: { 'accept-encoding': 'gzip, br' } });
    if (size < 1024) assert.equal(asked.headers['content-encoding'], undefined, `${size} bytes: not compressed`);
    else assert.ok(['gzip', 'br'].includes(String(asked.headers['content-encoding'])), `${size} bytes: compressed`);
    assert.equal(asked.text, plain.text);
  }
});

test('small bodies are never compressed: an empty page and an error', async () => {
  const { key } = await userWithMeals([]);
  const headers = { 'accept-encoding': 'gzip, br' };
  const empty = await request(server, { path: `/v1/meals?lastModifiedSince=${OLD}`, key, headers });
  assertPage(empty);
  assert.equal(empty.headers['content-encoding'], undefined);
  const error = await request(server, { path: '/v1/meals?lastModifiedSince=nope', key, headers });
  assertError(error, 400, 'invalid_parameter', { param: 'lastModifiedSince' });
  assert.equal(error.headers['content-encoding'], undefined);
});

async function deleteMeal(userId: string, mealId: string): Promise<void> {
  await server.deleteMeal(userId, mealId);
}

test('twenty simultaneous first-sync pages (limit 5000) all come back whole, identical to one alone', async () => {
  // More than the large-page budget lets through at once (http/large-page-gate.ts): the rest wait their turn.
  const { key } = await userWithMeals(mealsOf(1500));
  const path = `/v1/meals?lastModifiedSince=${OLD}&limit=5000`;
  const alone = await request(server, { path, key });
  assert.equal(assertPage(alone).count, 1500);
  const together = await Promise.all(Array.from({ length: 20 }, () => request(server, { path, key })));
  for (const r of together) {
    assert.equal(r.status, 200);
    assert.equal(r.text, alone.text);
  }
});

test('a compressed page says Vary: Accept-Encoding, and a HEAD asking for compression gets the same headers', async () => {
  const { key } = await userWithMeals(mealsOf(8));
  const path = `/v1/meals?lastModifiedSince=${OLD}`;
  const headers = { 'accept-encoding': 'gzip' };
  const get = await request(server, { path, key, headers });
  assert.equal(get.headers['content-encoding'], 'gzip');
  assert.equal(get.headers.vary, 'accept-encoding');
  const head = await request(server, { method: 'HEAD', path, key, headers });
  assert.equal(head.status, 200);
  assert.equal(head.raw.length, 0);
  assert.equal(head.headers['content-encoding'], 'gzip');
  assert.equal(head.headers.vary, 'accept-encoding');
});
