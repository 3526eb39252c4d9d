import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertPage, OLD } from '../http/http-expect.js';
import { createAnswerChecker } from '../http/openapi-answer-check.js';
import { cliJson } from '../support/cli.js';
import { newPostgresDatabase, postgresSkipReason, TEST_PG_URL, type TestPostgresStore } from '../support/postgres.js';
import {
  connectTestRedis,
  deleteKeysUnder,
  redisSkipReason,
  TEST_REDIS_URL,
  uniqueTestPrefix,
} from '../support/redis.js';
import { getMeals, makeMeal, newUserId, request, startTestServer, type TestServer } from '../support/server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

// Several instances of the service on one PostgreSQL and one Redis (exact under concurrency and
// across instances: docs/operations.md#scale-out-many-instances-on-postgresql-and-redis). Each
// reaches both servers through a TCP proxy of the test's own, so that a server can be cut and
// restored without stopping the machine's own PostgreSQL or Redis.
const skip = (await postgresSkipReason()) ?? (await redisSkipReason());

describe('several instances on one PostgreSQL and one Redis', { skip: skip ?? false }, () => {
  let store: TestPostgresStore;
  let pgProxy: TcpProxy;
  let redisProxy: TcpProxy;
  let prefix: string;
  let db: string; // the store as the instances and the CLI reach it: through the proxy
  /** Two instances with the spec's limits (3 s, 1000 a day), and two allowing 3 a day. */
  let strict: [TestServer, TestServer];
  let quota: [TestServer, TestServer];

  before(async () => {
    store = await newPostgresDatabase('multi');
    const pg = new URL(TEST_PG_URL);
    const redis = new URL(TEST_REDIS_URL);
    [pgProxy, redisProxy] = await Promise.all([
      startTcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) }),
      startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) }),
    ]);
    const through = new URL(store.url);
    through.hostname = pgProxy.host;
    through.port = String(pgProxy.port);
    db = through.href;
    prefix = uniqueTestPrefix('multi');
    const redisUrl = `redis://${redisProxy.host}:${redisProxy.port}`;
    const start = (minIntervalMs: number, dailyLimit: number, label: string) =>
      startTestServer({ db, redis: { url: redisUrl, prefix: `${prefix}${label}:` }, minIntervalMs, dailyLimit });
    const servers = await Promise.all([
      start(3000, 1000, 's'),
      start(3000, 1000, 's'),
      start(0, 3, 'q'),
      start(0, 3, 'q'),
    ]);
    strict = [servers[0] as TestServer, servers[1] as TestServer];
    quota = [servers[2] as TestServer, servers[3] as TestServer];
  });

  after(async () => {
    pgProxy?.restore();
    redisProxy?.restore();
    await Promise.all([...(strict ?? []), ...(quota ?? [])].map((server) => server.stop()));
    await Promise.all([pgProxy?.close(), redisProxy?.close()]);
    const redis = connectTestRedis();
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
    await store?.remove();
  });

  /** `count` simultaneous requests with one key, alternating between the two instances. */
  async function burst(pair: readonly TestServer[], key: string, count: number) {
    return Promise.all(
      Array.from({ length: count }, (_, i) =>
        getMeals(pair[i % pair.length] as TestServer, key, { lastModifiedSince: OLD }),
      ),
    );
  }

  const statuses = (responses: readonly { status: number }[]) => responses.map((res) => res.status).sort();

  test('of 20 simultaneous requests with one key spread over both instances, exactly one is a 200, ten times over', async () => {
    for (let round = 0; round < 10; round += 1) {
      const { key } = await strict[0].createKey(newUserId('burst'));
      const answers = await burst(strict, key, 20);
      assert.deepEqual(statuses(answers), [200, ...Array<number>(19).fill(429)], `round ${round}`);
      for (const refused of answers.filter((res) => res.status === 429)) {
        assert.ok(Number(refused.headers['retry-after']) >= 1, 'a 429 says when to come back');
      }
    }
  });

  test('an instance of two workers beside a single one: still exactly one 200 of 20, all on Redis', async () => {
    const redisUrl = `redis://${redisProxy.host}:${redisProxy.port}`;
    const workers = await startTestServer({
      db,
      redis: { url: redisUrl, prefix: `${prefix}s:` },
      minIntervalMs: 3000,
      workers: 2,
    });
    try {
      for (let round = 0; round < 3; round += 1) {
        const { key } = await strict[0].createKey(newUserId('workers'));
        const answers = await burst([workers, strict[0]], key, 20);
        assert.deepEqual(statuses(answers), [200, ...Array<number>(19).fill(429)], `round ${round}`);
      }
    } finally {
      assert.equal(await workers.stop(), 0, 'SIGTERM drains every worker and exits 0');
    }
  });

  test('the daily quota is shared: 3 a day across both instances, then 429 until midnight UTC on either', async () => {
    const { key } = await quota[0].createKey(newUserId('quota'));
    const answers = [];
    for (let i = 0; i < 8; i += 1)
      answers.push(await getMeals(quota[i % 2] as TestServer, key, { lastModifiedSince: OLD }));
    assert.deepEqual(
      answers.map((res) => res.status),
      [200, 200, 200, 429, 429, 429, 429, 429],
    );
    assert.deepEqual(
      answers.slice(0, 3).map((res) => res.headers['x-ratelimit-remaining']),
      ['2', '1', '0'],
      'one count, whichever instance answers',
    );
  });

  test('a meal written through the CLI is read alike through both instances', async () => {
    const userId = newUserId('alike');
    const { key } = await quota[0].createKey(userId);
    await quota[0].importMeals(userId, [
      makeMeal(),
      makeMeal('m-\u00e9\u{1f600}', { description: 'quote " and \\ and \n' }),
    ]);
    const [a, b] = await Promise.all(quota.map((server) => getMeals(server, key, { lastModifiedSince: OLD })));
    assert.equal(assertPage(a as never, userId).count, 2);
    assert.equal(a?.text, b?.text, 'the same body, byte for byte');
  });

  test('a key revoked through the CLI is refused by every instance within 1 s', async () => {
    const { id, key } = await quota[0].createKey(newUserId('revoke'));
    // Both instances have the key cached as valid.
    for (const server of quota) assert.equal((await getMeals(server, key, { lastModifiedSince: OLD })).status, 200);
    await cliJson(['keys', 'revoke', id, '--db', db]);
    const revokedAt = Date.now();
    const refusedAfter = await Promise.all(
      quota.map(async (server) => {
        for (;;) {
          const res = await getMeals(server, key, { lastModifiedSince: OLD });
          if (res.status === 401) return Date.now() - revokedAt;
          assert.ok(Date.now() - revokedAt < 5000, 'still accepted 5 s after revocation');
          await sleep(50);
        }
      }),
    );
    for (const ms of refusedAfter) assert.ok(ms <= 1000, `refused ${ms} ms after the revocation`);
  });

  test('Redis cut mid-load: no 5xx and no answer slower than 1 s; once it is back, the limits are exact again', async () => {
    const keys = await Promise.all(Array.from({ length: 6 }, () => strict[0].createKey(newUserId('load'))));
    const slow: number[] = [];
    const failed: number[] = [];
    let running = true;
    const load = Promise.all(
      keys.map(async ({ key }, i) => {
        while (running) {
          const started = Date.now();
          const res = await getMeals(strict[i % 2] as TestServer, key, { lastModifiedSince: OLD });
          const ms = Date.now() - started;
          if (ms > 1000) slow.push(ms);
          if (res.status >= 500) failed.push(res.status);
          await sleep(20);
        }
      }),
    );
    await sleep(500);
    redisProxy.cut('stall');
    await sleep(2500);
    redisProxy.restore();
    await sleep(500);
    redisProxy.cut('refuse');
    await sleep(2000);
    redisProxy.restore();
    running = false;
    await load;
    assert.deepEqual(failed, [], 'no 5xx while Redis was cut');
    assert.deepEqual(slow, [], 'no answer slower than 1 s');

    // Back on Redis (the fallback probes every second): one limit for both instances again.
    await sleep(2500);
    for (let round = 0; round < 3; round += 1) {
      const { key } = await strict[0].createKey(newUserId('after'));
      assert.deepEqual(statuses(await burst(strict, key, 20)), [200, ...Array<number>(19).fill(429)], `round ${round}`);
    }
  });

  test('PostgreSQL cut: 503 unavailable with Retry-After and /readyz 503 while down; 200 again after, same processes', async () => {
    const userId = newUserId('pgcut');
    const { key } = await quota[0].createKey(userId);
    await quota[0].importMeals(userId, [makeMeal()]);
    assert.equal((await getMeals(quota[0], key, { lastModifiedSince: OLD })).status, 200);
    // The 503s are checked against the OpenAPI document too (openapi-conformance.test.ts sends
    // every other case): status, headers and body as it describes them.
    const served = await request(quota[0], { path: '/v1/openapi.json' });
    const checker = createAnswerChecker(served.json as Record<string, unknown>);
    pgProxy.cut('refuse');
    try {
      await sleep(700); // past the key cache (500 ms): the next request must reach the store
      for (const server of quota) {
        const res = await getMeals(server, key, { lastModifiedSince: OLD });
        assert.equal(res.status, 503, res.text);
        assert.equal((res.json as { error: { code: string } }).error.code, 'unavailable');
        assert.ok(Number(res.headers['retry-after']) >= 1, 'a 503 says when to try again');
        assert.deepEqual(checker.problems({ method: 'GET', path: '/v1/meals' }, 'GET', res), [], 'as documented');
        const ready = await request(server, { path: '/readyz' });
        assert.equal(ready.status, 503);
        assert.deepEqual(checker.problems({ method: 'GET', path: '/readyz' }, 'GET', ready), [], 'as documented');
        assert.equal((await request(server, { path: '/healthz' })).status, 200, 'the process itself is fine');
      }
    } finally {
      pgProxy.restore();
    }
    for (const server of quota) {
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt += 1) {
        status = (await request(server, { path: '/readyz' })).status;
        if (status !== 200) await sleep(200);
      }
      assert.equal(status, 200, 'ready again without a restart');
    }
    const { key: fresh } = await quota[1].createKey(newUserId('pgback'));
    assert.equal((await getMeals(quota[1], fresh, { lastModifiedSince: OLD })).status, 200);
  });
});
