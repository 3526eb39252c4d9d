import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OLD, sleep } from '../http/http-expect.js';
import { sampleSum, samples, scrape } from '../support/metrics.js';
import {
  getMeals,
  newUserId,
  request,
  sigtermWithAnswerInFlight,
  startTestServer,
  type TestServer,
} from '../support/server.js';

/** The pids of the workers the primary has started so far, in order (from its log). */
function workerPids(server: TestServer): number[] {
  return [...server.logs().matchAll(/"workerPid":(\d+),"msg":"worker started"/g)].map((m) => Number(m[1]));
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('serve --workers 2 with the spec limits', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ workers: 2, adminPort: 0, minIntervalMs: 3000, dailyLimit: 1000 });
  });

  after(async () => {
    await server.stop();
  });

  test('prints the one listening line once both workers listen', () => {
    assert.equal(server.stdout(), `listening on ${server.url}\n`);
    assert.equal(workerPids(server).length, 2);
    assert.equal((server.logs().match(/"msg":"Server listening at /g) ?? []).length, 2);
  });

  test('of 20 simultaneous requests with one key spread over the workers, exactly one is accepted, every time', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { key } = await server.createKey(newUserId());
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => getMeals(server, key, { lastModifiedSince: OLD })),
      );
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [200, ...Array<number>(19).fill(429)], `round ${round + 1}`);
    }
  });

  test('one scrape of the admin listener shows the counts of both workers', async () => {
    const before = await scrape(server.adminUrl);
    const counted = (text: string, worker: string) =>
      sampleSum(text, 'meal_export_http_requests_total', { route: '/healthz', worker });
    for (let i = 0; i < 10; i += 1) assert.equal((await request(server, { path: '/healthz' })).status, 200);
    const { status, text } = await scrape(server.adminUrl);
    assert.equal(status, 200);
    const perWorker = ['1', '2'].map((worker) => counted(text, worker) - counted(before.text, worker));
    assert.equal(perWorker[0]! + perWorker[1]!, 10, `all ten requests counted: ${perWorker.join(' + ')}`);
    assert.ok(
      perWorker.every((n) => n > 0),
      `each worker served some (round robin): ${perWorker.join(' + ')}`,
    );
    // The requests of the previous test too: 100 over both workers, 5 accepted.
    assert.equal(sampleSum(text, 'meal_export_http_requests_total', { route: '/v1/meals' }), 100);
    assert.equal(sampleSum(text, 'meal_export_limiter_decisions_total', { limiter: 'rate', decision: 'allowed' }), 5);
    assert.equal(sampleSum(text, 'meal_export_workers_listening'), 2);
    assert.ok(samples(text, 'process_resident_memory_bytes').length >= 2, "each worker's process metrics");
  });

  test('a worker that does not answer is left out of the scrape, which still answers', async () => {
    const [, second] = workerPids(server);
    assert.ok(second !== undefined);
    process.kill(second, 'SIGSTOP');
    try {
      const started = Date.now();
      const { status, text } = await scrape(server.adminUrl);
      assert.equal(status, 200);
      assert.ok(Date.now() - started < 10_000, 'within the 2 s wait, give or take a loaded machine');
      const workers = new Set(samples(text, 'meal_export_http_requests_total').map((s) => s.labels.worker));
      assert.deepEqual([...workers], ['1'], 'the stopped worker 2 is missing, worker 1 is there');
      assert.match(server.logs(), /"msg":"a worker did not answer the scrape in time"/);
    } finally {
      process.kill(second, 'SIGCONT');
    }
  });

  test('a worker killed with SIGKILL is replaced, and service goes on', async () => {
    const [first] = workerPids(server);
    assert.ok(first !== undefined);
    process.kill(first, 'SIGKILL');
    await until('a third worker to start', () => workerPids(server).length === 3);
    await until('both workers to listen again', async () => {
      const { text } = await scrape(server.adminUrl);
      return sampleSum(text, 'meal_export_workers_listening') === 2;
    });
    const answers = [];
    for (let i = 0; i < 6; i += 1) answers.push((await request(server, { path: '/healthz' })).status);
    assert.deepEqual(answers, [200, 200, 200, 200, 200, 200]);
    const { key } = await server.createKey(newUserId());
    assert.equal((await getMeals(server, key, { lastModifiedSince: OLD })).status, 200);
    const { text } = await scrape(server.adminUrl);
    assert.equal(sampleSum(text, 'meal_export_worker_restarts_total'), 1);
    assert.match(server.logs(), /"msg":"worker exited unexpectedly: starting it again"/);
  });
});

describe('serve --workers 2, no interval and 3 requests a day', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ workers: 2, minIntervalMs: 0, dailyLimit: 3 });
  });

  after(async () => {
    await server.stop();
  });

  test('the daily quota is shared: of 10 requests over both workers exactly 3 are accepted', async () => {
    const { key } = await server.createKey(newUserId());
    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1) statuses.push((await getMeals(server, key, { lastModifiedSince: OLD })).status);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
  });

  test('the brute-force guard is shared: after 20 failures over both workers the address gets 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 24; i += 1)
      statuses.push((await getMeals(server, undefined, { lastModifiedSince: OLD })).status);
    assert.deepEqual(statuses, [...Array<number>(20).fill(401), 429, 429, 429, 429]);
  });
});

describe('serve --workers 2 without an interval', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ workers: 2, minIntervalMs: 0 });
  });

  after(async () => {
    await server.stop();
  });

  test('with no interval, 40 simultaneous requests with one key over both workers are all accepted', async () => {
    // The primary decides on its own clock, in arrival order: a worker's earlier reading of the
    // time arriving after another's later one must not look like an interval not yet over.
    const { key } = await server.createKey(newUserId());
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => getMeals(server, key, { lastModifiedSince: OLD })),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      Array<number>(40).fill(200),
    );
  });

  test('SIGTERM drains every worker: the answer in flight is sent in full, then the primary exits 0', async () => {
    // About 16 MB: most of it is still in a worker when SIGTERM arrives.
    const { text, exitCode } = await sigtermWithAnswerInFlight(server);
    const body = JSON.parse(text) as { count: number; meals: unknown[] };
    assert.equal(body.meals.length, 5000, 'the whole answer arrived');
    assert.equal(exitCode, 0, 'exit code 0');
    assert.equal((server.logs().match(/"msg":"worker exited"/g) ?? []).length, 2);
  });
});
