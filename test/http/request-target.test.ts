import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getMeals, makeMeal, newUserId, request, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { assertError, assertPage, idsOf, OLD } from './http-expect.js';

// One server for the file: no interval, no practical daily limit. Every test has its own user.
let server: ServedApp;

before(async () => {
  server = await startInProcessServer();
});

after(async () => {
  await server.stop();
});

async function userWithOneMeal(): Promise<{ userId: string; key: string }> {
  const userId = newUserId();
  const { key } = await server.createKey(userId);
  await server.importMeals(userId, [makeMeal()]);
  return { userId, key };
}

describe('a request target in absolute form (RFC 9112 section 3.2.2)', () => {
  test('GET https://host/v1/meals?… is answered as GET /v1/meals?… is', async () => {
    const { userId, key } = await userWithOneMeal();
    const query = `lastModifiedSince=${encodeURIComponent(OLD)}&limit=5`;
    const origin = assertPage(await request(server, { path: `/v1/meals?${query}`, key }), userId);
    const absolute = await request(server, { path: `https://${server.host}:${server.port}/v1/meals?${query}`, key });
    const page = assertPage(absolute, userId);
    assert.equal(page.count, 1);
    assert.deepEqual(idsOf(page), idsOf(origin));
    assert.equal(page.nextCursor, origin.nextCursor);
  });

  test('the host of the target stands for the Host header, whatever that says', async () => {
    const { userId, key } = await userWithOneMeal();
    const res = await request(server, {
      path: `HTTPS://api.example.com/v1/meals?lastModifiedSince=${encodeURIComponent(OLD)}`,
      key,
      headers: { host: 'elsewhere.example.org' },
    });
    assert.equal(assertPage(res, userId).count, 1);
  });

  test('the other routes are reached in absolute form too, and an unknown path is 404', async () => {
    const base = `https://${server.host}:${server.port}`;
    const health = await request(server, { path: `${base}/healthz` });
    assert.equal(health.status, 200);
    assert.deepEqual(health.json, { ok: true });
    assertError(await request(server, { path: `${base}/v1/meal` }), 404, 'not_found', { param: null });
    assertError(await request(server, { path: `${base}` }), 404, 'not_found', { param: null });
  });

  test('a query of an absolute-form target is checked as any other', async () => {
    const { key } = await userWithOneMeal();
    const res = await request(server, { path: `https://${server.host}/v1/meals?lastModifiedSince=x`, key });
    assertError(res, 400, 'invalid_parameter', { param: 'lastModifiedSince' });
  });

  test('an absolute-form target over 8 KiB is 414, as an origin-form one is', async () => {
    const base = `https://${'h'.repeat(8 * 1024)}`;
    assertError(await request(server, { path: `${base}/v1/meals` }), 414, 'request_too_large', { param: null });
  });

  test('an http(s) target without a host is refused as malformed (RFC 9110 section 4.2.1)', async () => {
    assertError(await request(server, { path: 'https:///v1/meals' }), 400, 'bad_request', { param: null });
  });
});

describe('the year 0000 (RFC 3339 section 5.6)', () => {
  test('lastModifiedSince=0000-01-01T00:00:00Z is accepted, echoed, and means every meal', async () => {
    const { userId, key } = await userWithOneMeal();
    const page = assertPage(await getMeals(server, key, { lastModifiedSince: '0000-01-01T00:00:00Z' }), userId);
    assert.equal(page.lastModifiedSince, '0000-01-01T00:00:00.000Z');
    assert.equal(page.count, 1);
    const withDeleted = await getMeals(server, key, { lastModifiedSince: '0000-01-01', includeDeleted: 'true' });
    assert.equal(assertPage(withDeleted, userId).count, 1);
  });
});
