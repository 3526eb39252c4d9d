import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, describe, test } from 'node:test';
import { OLD, sleep } from '../http/http-expect.js';
import { sampleSum, scrape } from '../support/metrics.js';
import { newUserId, request, startTestServer, type TestResponse, type TestServer } from '../support/server.js';

/**
 * Where `serve --workers N` decides a key's limits (docs/operations.md#workers---workers-n): in
 * the worker that holds the key's lease, taken with the key's first request there, or in the
 * primary once several workers ask. The rules stay those of one process (docs/api.md#limits).
 */

const MEALS = `/v1/meals?lastModifiedSince=${OLD}`;

/** `count` requests of `key` at once, each on a connection of its own (spread over the workers). */
async function together(server: TestServer, key: string, count: number): Promise<number[]> {
  const answers = await Promise.all(Array.from({ length: count }, () => request(server, { path: MEALS, key })));
  return answers.map((answer) => answer.status).sort();
}

/** One client on one kept-alive connection, so on one worker. */
function keepAliveClient(server: TestServer, key: string) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  return {
    get: (): Promise<TestResponse> => request(server, { path: MEALS, key, agent }),
    close: () => agent.destroy(),
  };
}

/** The pids of the workers the primary has started so far, in order (from its log). */
function workerPids(server: TestServer): number[] {
  return [...server.logs().matchAll(/"workerPid":(\d+),"msg":"worker started"/g)].map((m) => Number(m[1]));
}

describe('serve --workers 4, 1 s interval', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ workers: 4, minIntervalMs: 1000, dailyLimit: 1000 });
  });

  after(async () => {
    await server.stop();
  });

  test('of 20 simultaneous requests with one key spread over four workers, exactly one is accepted, every time', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { key } = await server.createKey(newUserId());
      assert.deepEqual(await together(server, key, 20), [200, ...Array<number>(19).fill(429)], `round ${round + 1}`);
    }
  });

  test("a keep-alive client's key is decided in its worker, and the interval moves with the key to the others", async () => {
    const { key } = await server.createKey(newUserId());
    const client = keepAliveClient(server, key);
    try {
      const acceptedAt = performance.now();
      assert.equal((await client.get()).status, 200);
      const refused = await client.get();
      assert.equal(refused.status, 429, 'the interval, decided where the key is leased');
      assert.equal(refused.headers['retry-after'], '1');
      // The other workers ask about the key: the lease comes back to the primary with its interval.
      assert.deepEqual(await together(server, key, 12), Array<number>(12).fill(429));
      assert.ok(
        performance.now() - acceptedAt < 1000,
        'still within the interval (a loaded machine would void this check)',
      );
      await sleep(Math.max(0, acceptedAt + 1100 - performance.now()));
      assert.deepEqual(await together(server, key, 12), [200, ...Array<number>(11).fill(429)]);
      assert.equal((await client.get()).status, 429, 'the keep-alive client meets the same interval');
    } finally {
      client.close();
    }
  });
  test('with the primary paused, a keep-alive client is still answered: its worker decides its key', async () => {
    const { key } = await server.createKey(newUserId());
    const client = keepAliveClient(server, key);
    const primary = server.child.pid ?? 0;
    try {
      assert.equal((await client.get()).status, 200);
      process.kill(primary, 'SIGSTOP');
      // A question to the primary would now wait 1 s and be a 503.
      const refused = await client.get();
      assert.equal(refused.status, 429);
      await sleep(1_100);
      assert.equal((await client.get()).status, 200);
    } finally {
      process.kill(primary, 'SIGCONT');
      client.close();
    }
  });
});

describe('serve --workers 2, no interval and 3 requests a day: the day moves with the key', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ workers: 2, minIntervalMs: 0, dailyLimit: 3 });
  });

  after(async () => {
    await server.stop();
  });

  test('two accepted on one keep-alive connection, then of 10 over fresh connections exactly one', async () => {
    const { key } = await server.createKey(newUserId());
    const client = keepAliveClient(server, key);
    try {
      const first = await client.get();
      const second = await client.get();
      assert.deepEqual([first.status, second.status], [200, 200]);
      assert.equal(second.headers['x-ratelimit-remaining'], '1');
    } finally {
      client.close();
    }
    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1) statuses.push((await request(server, { path: MEALS, key })).status);
    assert.deepEqual(statuses, [200, ...Array<number>(9).fill(429)]);
  });
});

describe('serve --workers 2: a worker killed while it holds a lease', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ workers: 2, adminPort: 0, minIntervalMs: 1000, dailyLimit: 10 });
  });

  after(async () => {
    await server.stop();
  });

  test("the key waits a whole interval from the death and keeps its day's count as flushed", async () => {
    const { key } = await server.createKey(newUserId());
    const served = async () => {
      const { text } = await scrape(server.adminUrl);
      return ['1', '2'].map((worker) =>
        sampleSum(text, 'meal_export_http_requests_total', { route: '/v1/meals', worker }),
      );
    };
    const before = await served();
    const client = keepAliveClient(server, key);
    try {
      assert.equal((await client.get()).status, 200);
    } finally {
      client.close();
    }
    const after = await served();
    const slot = after.findIndex((count, i) => count > (before[i] ?? 0));
    const holder = workerPids(server)[slot];
    assert.ok(holder !== undefined, 'the worker that served (and holds the lease) is known');
    // The worker flushes its accepted requests every 5 s (docs/operations.md#limits-across-restarts).
    await sleep(5_500);
    process.kill(holder, 'SIGKILL');
    const diedAt = performance.now();
    // A connection handed to the dying worker fails; a question on its way to it is a 503.
    const ask = () => request(server, { path: MEALS, key }).catch(() => undefined);
    let answer = await ask();
    while ((answer === undefined || answer.status === 503) && performance.now() - diedAt < 5_000) {
      await sleep(50);
      answer = await ask();
    }
    assert.ok(answer !== undefined, 'the surviving worker answers');
    if (performance.now() - diedAt < 900) assert.equal(answer.status, 429, 'a whole interval from the death');
    await sleep(1_100);
    const next = await request(server, { path: MEALS, key });
    assert.equal(next.status, 200);
    assert.equal(next.headers['x-ratelimit-remaining'], '8', "the day's first request was kept: 10 - 2");
  });
});
