import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliJson } from '../support/cli.js';
import { newUserId, request, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { assertPage, nextUtcMidnightSeconds, OLD } from './http-expect.js';
import { assertKeyInfo } from './key-info-expect.js';

// GET /v1/key tells a key where it stands without spending a request
// (docs/api.md#your-key-and-its-limits): never counted, never refused for the limits.

const MEALS = `/v1/meals?lastModifiedSince=${OLD}`;

describe('GET /v1/key', () => {
  /** The spec's interval, and a daily quota of 3 (serve --daily-limit) to reach its end. */
  let server: ServedApp;

  before(async () => {
    server = await startInProcessServer({ minIntervalMs: 3000, dailyLimit: 3 });
  });

  after(async () => {
    await server?.stop();
  });

  test('answers the key as keys list shows it and its whole quota, in exactly the documented fields and order', async () => {
    const userId = newUserId('key-info');
    const created = await server.createKey(userId, ['--name', 'backoffice', '--expires-in', '30d']);
    const before = Date.now();
    const res = await request(server, { path: '/v1/key', key: created.key });
    const body = assertKeyInfo(res);
    const listed = (await cliJson(['keys', 'list', '--user', userId, '--db', server.db])) as Record<string, unknown>[];
    const { id, name, prefix, createdAt, expiresAt } = listed[0] ?? {};
    assert.deepEqual(body.key, { id, name, prefix, userId, createdAt, expiresAt });
    assert.equal(body.key.name, 'backoffice');
    assert.equal(typeof body.key.expiresAt, 'string');
    assert.deepEqual(
      { ...body.limits, nextAcceptedAt: undefined },
      {
        daily: 3,
        usedToday: 0,
        remainingToday: 3,
        resetsAt: new Date(nextUtcMidnightSeconds() * 1000).toISOString(),
        minIntervalMs: 3000,
        nextAcceptedAt: undefined,
      },
    );
    // Accepted now: the answer's own time.
    const next = Date.parse(body.limits.nextAcceptedAt);
    assert.ok(next >= before - 5 && next <= Date.now() + 5, `${body.limits.nextAcceptedAt} is the answer's time`);
    assert.equal(res.headers['ratelimit-policy'], '"daily";q=3;w=86400, "interval";q=1;w=3');
  });

  test('a key without a name or expiry: name "" and expiresAt null', async () => {
    const { key } = await server.createKey(newUserId('key-plain'));
    const body = assertKeyInfo(await request(server, { path: '/v1/key', key }));
    assert.equal(body.key.name, '');
    assert.equal(body.key.expiresAt, null);
  });

  test('is never counted: usedToday does not move, and a /v1/meals right after it is accepted', async () => {
    const { key } = await server.createKey(newUserId('key-free'));
    for (let i = 0; i < 3; i += 1) {
      assert.equal(assertKeyInfo(await request(server, { path: '/v1/key', key })).limits.usedToday, 0);
    }
    assertPage(await request(server, { path: MEALS, key }));
    const after = assertKeyInfo(await request(server, { path: '/v1/key', key }));
    assert.equal(after.limits.usedToday, 1);
    assert.equal(after.limits.remainingToday, 2);
  });

  test('is never refused within the interval: 200, with nextAcceptedAt the end of the interval', async () => {
    const { key } = await server.createKey(newUserId('key-interval'));
    const sent = Date.now();
    assertPage(await request(server, { path: MEALS, key }));
    const answered = Date.now();
    const body = assertKeyInfo(await request(server, { path: '/v1/key', key }));
    const next = Date.parse(body.limits.nextAcceptedAt);
    assert.ok(next >= sent + 3000 - 5 && next <= answered + 3000 + 5, `${body.limits.nextAcceptedAt}`);
    const refused = await request(server, { path: MEALS, key });
    assert.equal(refused.status, 429, 'the interval is still running, as nextAcceptedAt said');
    const wait = Date.parse(body.limits.nextAcceptedAt) - Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait) + 20));
    assertPage(await request(server, { path: MEALS, key }));
  });

  test("is never refused with today's quota used up: remainingToday 0 and nextAcceptedAt is resetsAt", async () => {
    const quota = await startInProcessServer({ minIntervalMs: 0, dailyLimit: 2 });
    try {
      const { key } = await quota.createKey(newUserId('key-spent'));
      assertPage(await request(quota, { path: MEALS, key }));
      assertPage(await request(quota, { path: MEALS, key }));
      assert.equal((await request(quota, { path: MEALS, key })).status, 429);
      const res = await request(quota, { path: '/v1/key', key });
      const body = assertKeyInfo(res);
      assert.equal(body.limits.usedToday, 2);
      assert.equal(body.limits.remainingToday, 0);
      assert.equal(body.limits.nextAcceptedAt, body.limits.resetsAt);
      assert.equal(body.limits.minIntervalMs, 0);
      assert.equal(res.headers['ratelimit-policy'], '"daily";q=2;w=86400', 'no interval: its policy is left out');
    } finally {
      await quota.stop();
    }
  });

  test("HEAD: the GET's status and headers, no body, and nothing counted", async () => {
    const { key } = await server.createKey(newUserId('key-head'));
    const get = await request(server, { path: '/v1/key', key });
    const head = await request(server, { method: 'HEAD', path: '/v1/key', key });
    assert.equal(head.status, 200);
    assert.equal(head.raw.length, 0);
    assert.equal(head.headers['content-length'], get.headers['content-length']);
    for (const name of ['content-type', 'ratelimit-policy', 'ratelimit', 'x-ratelimit-remaining', 'cache-control']) {
      assert.equal(head.headers[name], get.headers[name], name);
    }
    assert.equal(assertKeyInfo(await request(server, { path: '/v1/key', key })).limits.usedToday, 0);
  });

  test('an empty query (a bare "?" or "&"s) is no parameter', async () => {
    const { key } = await server.createKey(newUserId('key-empty-query'));
    assertKeyInfo(await request(server, { path: '/v1/key?', key }), '?');
    assertKeyInfo(await request(server, { path: '/v1/key?&&', key }), '?&&');
  });
});
