import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { getMeals, newUserId, request, type TestResponse, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { assertError, assertPage, clearOfMidnight, nextUtcMidnightSeconds, OLD, sleep } from './http-expect.js';

// Three servers: the spec's limits (3 s, 1000 a day); no interval and 3 a day; and a 1.5 s
// interval, whose policy and Retry-After show the rounding up to whole seconds.
let spec: ServedApp;
let daily: ServedApp;
let halfSeconds: ServedApp;

// Each case counts a key's requests of today, over a few seconds: never across UTC midnight.
beforeEach(() => clearOfMidnight(30_000));

const SPEC_POLICY = '"daily";q=1000;w=86400, "interval";q=1;w=3';
const DAILY_POLICY = '"daily";q=3;w=86400';
const HALF_SECONDS_POLICY = '"daily";q=1000;w=86400, "interval";q=1;w=2';
const QUERY = { lastModifiedSince: OLD };

before(async () => {
  [spec, daily, halfSeconds] = await Promise.all([
    startInProcessServer({ minIntervalMs: 3000, dailyLimit: 1000 }),
    startInProcessServer({ minIntervalMs: 0, dailyLimit: 3 }),
    startInProcessServer({ minIntervalMs: 1500, dailyLimit: 1000 }),
  ]);
});

after(async () => {
  await Promise.all([spec.stop(), daily.stop(), halfSeconds.stop()]);
});

async function freshKey(server: ServedApp, userId = newUserId()): Promise<string> {
  return (await server.createKey(userId)).key;
}

/** The rate-limit headers of an authenticated answer, checked against each other and the clock. */
function assertQuota(res: TestResponse, policy: string, quota: number, remaining: number): void {
  const where = `HTTP ${res.status}`;
  assert.equal(res.headers['ratelimit-policy'], policy, `RateLimit-Policy (${where})`);
  const m = /^"daily";r=(\d+);t=(\d+)$/.exec(String(res.headers.ratelimit));
  assert.ok(m, `RateLimit: ${res.headers.ratelimit} (${where})`);
  assert.equal(Number(m[1]), remaining, `RateLimit r (${where})`);
  const reset = nextUtcMidnightSeconds();
  assert.ok(Math.abs(Number(m[2]) - (reset - Date.now() / 1000)) <= 2, `RateLimit t=${m[2]} (${where})`);
  assert.equal(res.headers['x-ratelimit-limit'], String(quota), `X-RateLimit-Limit (${where})`);
  assert.equal(res.headers['x-ratelimit-remaining'], String(remaining), `X-RateLimit-Remaining (${where})`);
  assert.equal(res.headers['x-ratelimit-reset'], String(reset), `X-RateLimit-Reset is the next 00:00:00Z (${where})`);
}

test('with the spec limits, 200, 400 and 429 answers carry the exact RateLimit-Policy and the daily quota left', async () => {
  const key = await freshKey(spec);
  const ok = await getMeals(spec, key, QUERY);
  assertPage(ok);
  assertQuota(ok, SPEC_POLICY, 1000, 999);
  const refused = await getMeals(spec, key, QUERY);
  assertError(refused, 429, 'rate_limited', { param: null });
  assertQuota(refused, SPEC_POLICY, 1000, 999);
  assert.equal(refused.headers['retry-after'], '3', 'Retry-After: a 3 s interval, rounded up');

  const other = await freshKey(spec);
  const bad = await getMeals(spec, other, { lastModifiedSince: 'nope' });
  assertError(bad, 400, 'invalid_parameter', { param: 'lastModifiedSince' });
  assertQuota(bad, SPEC_POLICY, 1000, 999);
});

test('a 400 answer is an accepted request: it starts the interval and uses the daily quota', async () => {
  const key = await freshKey(spec);
  assertError(await getMeals(spec, key, { lastModifiedSince: OLD, limit: '0' }), 400, 'invalid_parameter');
  const next = await getMeals(spec, key, QUERY);
  assertError(next, 429, 'rate_limited', { param: null });
  assertQuota(next, SPEC_POLICY, 1000, 999);

  const dailyKey = await freshKey(daily);
  const remaining: number[] = [];
  for (const query of [{ lastModifiedSince: 'nope' }, QUERY, { lastModifiedSince: OLD, zzz: '1' }]) {
    remaining.push(Number((await getMeals(daily, dailyKey, query)).headers['x-ratelimit-remaining']));
  }
  assert.deepEqual(remaining, [2, 1, 0]);
  assertError(await getMeals(daily, dailyKey, QUERY), 429, 'rate_limited');
});

test('Retry-After is whole seconds rounded up, 429s do not move the interval, and the request after it is accepted', async () => {
  const key = await freshKey(halfSeconds);
  const first = await getMeals(halfSeconds, key, QUERY);
  const acceptedBy = Date.now(); // the server accepted it at or before this instant
  assertPage(first);
  assertQuota(first, HALF_SECONDS_POLICY, 1000, 999);
  const early = await getMeals(halfSeconds, key, QUERY);
  assertError(early, 429, 'rate_limited', { param: null });
  assert.equal(early.headers['retry-after'], '2', 'about 1.5 s left: Retry-After 2');
  assertQuota(early, HALF_SECONDS_POLICY, 1000, 999);
  await sleep(Math.max(0, acceptedBy + 700 - Date.now()));
  const later = await getMeals(halfSeconds, key, QUERY);
  assertError(later, 429, 'rate_limited', { param: null });
  assert.equal(later.headers['retry-after'], '1', 'under 1 s left: Retry-After 1');
  // 1.5 s after the accepted request (not after the refused ones) the next one is accepted.
  await sleep(Math.max(0, acceptedBy + 1550 - Date.now()));
  const accepted = await getMeals(halfSeconds, key, QUERY);
  assertPage(accepted);
  assertQuota(accepted, HALF_SECONDS_POLICY, 1000, 998);
});

test('of 20 simultaneous requests with one key exactly one is accepted; the others get 429 with Retry-After', async () => {
  const key = await freshKey(spec);
  const answers = await Promise.all(Array.from({ length: 20 }, () => getMeals(spec, key, QUERY)));
  const statuses = answers.map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, ...Array<number>(19).fill(429)]);
  for (const res of answers.filter((r) => r.status === 429)) {
    assertError(res, 429, 'rate_limited', { param: null });
    assert.ok(
      ['1', '2', '3'].includes(String(res.headers['retry-after'])),
      `Retry-After ${res.headers['retry-after']}`,
    );
    assertQuota(res, SPEC_POLICY, 1000, 999);
  }
});

test('of 20 simultaneous requests with a key allowed 3 a day and no interval, exactly 3 are accepted', async () => {
  const key = await freshKey(daily);
  const answers = await Promise.all(Array.from({ length: 20 }, () => getMeals(daily, key, QUERY)));
  assert.equal(answers.filter((r) => r.status === 200).length, 3);
  assert.equal(answers.filter((r) => r.status === 429).length, 17);
  const remaining = answers.filter((r) => r.status === 200).map((r) => r.headers['x-ratelimit-remaining']);
  assert.deepEqual(remaining.sort(), ['0', '1', '2'], 'each accepted request saw its own place in the quota');
});

test('each key has its own limits, even two keys of the same user', async () => {
  const userId = newUserId();
  const [a, b] = [await freshKey(spec, userId), await freshKey(spec, userId)];
  const c = await freshKey(spec);
  const [ra, rb, rc] = await Promise.all([a, b, c].map((key) => getMeals(spec, key, QUERY)));
  for (const res of [ra!, rb!, rc!]) {
    assertPage(res);
    assertQuota(res, SPEC_POLICY, 1000, 999);
  }
  assertError(await getMeals(spec, a, QUERY), 429, 'rate_limited');
});

test('without an interval the policy is the daily quota alone; past it every request, HEAD too, is 429 until 00:00:00Z', async () => {
  const key = await freshKey(daily);
  for (const remaining of [2, 1, 0]) assertQuota(await getMeals(daily, key, QUERY), DAILY_POLICY, 3, remaining);
  const refused = await getMeals(daily, key, QUERY);
  assertError(refused, 429, 'rate_limited', { param: null });
  assertQuota(refused, DAILY_POLICY, 3, 0);
  const toMidnight = Math.ceil(nextUtcMidnightSeconds() - Date.now() / 1000);
  assert.ok(Math.abs(Number(refused.headers['retry-after']) - toMidnight) <= 2, 'Retry-After: the next 00:00:00Z');
  const head = await request(daily, { method: 'HEAD', path: `/v1/meals?lastModifiedSince=${OLD}`, key });
  assert.equal(head.status, 429);
  assert.equal(head.raw.length, 0);
  // The same reset, asked a moment later: the rounded-up seconds are the same or, when a second
  // boundary passed between the two requests, one fewer.
  const headWait = Number(head.headers['retry-after']);
  const getWait = Number(refused.headers['retry-after']);
  assert.ok(headWait === getWait || headWait === getWait - 1, `HEAD Retry-After ${headWait}, GET ${getWait}`);
});

test('requests refused before authentication (403, 404, 405) use none of the quota', async () => {
  const key = await freshKey(daily);
  const path = `/v1/meals?lastModifiedSince=${OLD}`;
  assert.equal((await request(daily, { path, key, headers: { Origin: 'https://x.example' } })).status, 403);
  assert.equal((await request(daily, { method: 'OPTIONS', path, key })).status, 403);
  assert.equal((await request(daily, { path: '/v2/meals', key })).status, 404);
  assert.equal((await request(daily, { method: 'POST', path, key })).status, 405);
  assertQuota(await getMeals(daily, key, QUERY), DAILY_POLICY, 3, 2);
});

test('/healthz, /readyz and /v1/openapi.json are never rate limited', async () => {
  const key = await freshKey(spec);
  await getMeals(spec, key, QUERY);
  assert.equal((await getMeals(spec, key, QUERY)).status, 429, 'the key is inside its interval');
  const paths = ['/healthz', '/readyz', '/v1/openapi.json'];
  const answers = await Promise.all(
    paths.flatMap((path) => Array.from({ length: 5 }, () => request(spec, { path, key }))),
  );
  assert.deepEqual(
    answers.map((r) => r.status),
    Array<number>(15).fill(200),
  );
});
