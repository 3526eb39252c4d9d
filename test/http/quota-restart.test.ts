import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, type TestContext, test } from 'node:test';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { newPostgresDatabase, postgresSkipReason, type TestPostgresStore } from '../support/postgres.js';
import { makeTempDir } from '../support/project.js';
import {
  getMeals,
  newUserId,
  type StartOptions,
  startTestServer,
  type TestResponse,
  type TestServer,
} from '../support/server.js';
import { holdWriteLock } from '../support/write-lock.js';
import { assertError, clearOfMidnight, nextUtcMidnightSeconds, OLD, sleep } from './http-expect.js';

/**
 * The counts survive a restart of the service: exactly after a graceful stop (SIGTERM), and after a
 * crash at most the last 5 s of accepted requests are forgotten
 * (docs/operations.md#limits-across-restarts). Each case runs `serve` twice on one store (and one
 * data folder, so one certificate): the second process resumes each key's day where the first left
 * it (ratelimit/used-quota.ts).
 */
const QUERY = { lastModifiedSince: OLD };
const DAILY = { dailyLimit: 3, minIntervalMs: 0 } as const;
/** The key authenticator's flush (key-use-flush.ts), what a crash may forget. */
const FLUSH_MS = 5_000;

const pgSkip = await postgresSkipReason();

// Each case counts a key's requests of today across a restart, within about 15 s.
beforeEach(() => clearOfMidnight(30_000));

/** A data folder (and SQLite file) that outlives one server, for its restart; removed after the test. */
function restartableFolder(t: TestContext): string {
  const temp = makeTempDir('quota-restart');
  t.after(() => temp.remove());
  return temp.dir;
}

/** Starts `serve`; whatever the test's outcome, it is stopped after it. */
async function serve(t: TestContext, options: StartOptions): Promise<TestServer> {
  const server = await startTestServer(options);
  t.after(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
  });
  return server;
}

/** SIGKILL: no drain, no last flush. Resolves once the process is gone. */
async function crash(server: TestServer): Promise<void> {
  const exited = new Promise<void>((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) resolve();
    else server.child.once('exit', () => resolve());
  });
  server.child.kill('SIGKILL');
  await exited;
}

function assertAccepted(res: TestResponse, remaining: number, label: string): void {
  assert.equal(res.status, 200, `${label}: ${res.text}`);
  assert.equal(res.headers['x-ratelimit-remaining'], String(remaining), `${label}: X-RateLimit-Remaining`);
  assert.equal(res.headers.ratelimit?.toString().split(';')[1], `r=${remaining}`, `${label}: RateLimit r`);
}

/** A 429 of the spent daily quota: Retry-After (whole seconds, rounded up) until the next UTC midnight. */
function assertQuotaSpent(res: TestResponse, label: string): void {
  assertError(res, 429, 'rate_limited');
  assert.equal(res.headers['x-ratelimit-remaining'], '0', `${label}: X-RateLimit-Remaining`);
  assert.equal(res.headers['x-ratelimit-limit'], '3', `${label}: X-RateLimit-Limit`);
  const untilMidnight = nextUtcMidnightSeconds() - Date.now() / 1000;
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(
    Math.abs(retryAfter - untilMidnight) <= 2,
    `${label}: Retry-After ${retryAfter}, midnight in ${untilMidnight} s`,
  );
}

/** Two requests, SIGTERM, start again on the same store: one more accepted, then 429. */
async function dailyQuotaAcrossGracefulRestart(t: TestContext, options: StartOptions): Promise<void> {
  const first = await serve(t, { ...DAILY, ...options });
  const { key } = await first.createKey(newUserId('restart'));
  assertAccepted(await getMeals(first, key, QUERY), 2, 'first request');
  assertAccepted(await getMeals(first, key, QUERY), 1, 'second request');
  assert.equal(await first.stop(), 0, 'a graceful stop');

  const second = await serve(t, { ...DAILY, ...options });
  assertAccepted(await getMeals(second, key, QUERY), 0, 'third request, after the restart');
  assertQuotaSpent(await getMeals(second, key, QUERY), 'fourth request');
}

describe('the daily quota survives a graceful restart of serve (SIGTERM)', () => {
  test('on SQLite: two requests, a restart, one more accepted, then 429 until midnight', async (t) => {
    await dailyQuotaAcrossGracefulRestart(t, { dataDir: restartableFolder(t) });
  });

  test('on SQLite with --workers 2: the primary resumes what the workers counted', async (t) => {
    await dailyQuotaAcrossGracefulRestart(t, { dataDir: restartableFolder(t), workers: 2 });
  });

  test('on SQLite, stopped while another process holds the write lock: the last flush waits for it', async (t) => {
    const options = { ...DAILY, dataDir: restartableFolder(t) };
    const first = await serve(t, options);
    const { key } = await first.createKey(newUserId('locked'));
    // Taken before the requests, so no flush can have written them: the one on close must.
    await holdWriteLock(first.db, 2_000);
    const lockedAt = Date.now();
    assertAccepted(await getMeals(first, key, QUERY), 2, 'first request');
    assertAccepted(await getMeals(first, key, QUERY), 1, 'second request');
    assert.equal(await first.stop(), 0, 'a graceful stop');
    assert.ok(Date.now() - lockedAt >= 1_800, 'the server waited for the lock to write its counts');
    assert.doesNotMatch(first.logs(), /could not record key use on close/);

    const second = await serve(t, options);
    assertAccepted(await getMeals(second, key, QUERY), 0, 'third request, after the restart');
    assertQuotaSpent(await getMeals(second, key, QUERY), 'fourth request');
  });

  describe('on PostgreSQL without Redis', { skip: pgSkip ?? false }, () => {
    let store: TestPostgresStore;
    before(async () => {
      store = await newPostgresDatabase('quota');
    });
    after(async () => {
      await store?.remove();
    });

    test('two requests, a restart, one more accepted, then 429 until midnight', async (t) => {
      await dailyQuotaAcrossGracefulRestart(t, { dataDir: restartableFolder(t), db: store.url });
    });
  });
});

describe('the interval survives a graceful restart of serve', () => {
  test('with --min-interval-ms 3000, a request within 3 s of the last one, across a restart, is 429 until the 3 s are over', async (t) => {
    const options = { dataDir: restartableFolder(t), minIntervalMs: 3000, dailyLimit: 1000 };
    const first = await serve(t, options);
    const { key } = await first.createKey(newUserId('interval'));
    const accepted = await getMeals(first, key, QUERY);
    const acceptedAt = Date.now();
    assertAccepted(accepted, 999, 'first request');
    assert.equal(await first.stop(), 0);
    const second = await serve(t, options);
    const refused = await getMeals(second, key, QUERY);
    const elapsed = Date.now() - acceptedAt;
    assert.ok(elapsed < 3000, `the restart took ${elapsed} ms, too long to test a 3 s interval`);
    assertError(refused, 429, 'rate_limited');
    assert.equal(refused.headers['x-ratelimit-remaining'], '999', 'a refused request does not count');
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= Math.ceil((3000 - elapsed) / 1000) + 1, `Retry-After ${retryAfter}`);
    await sleep(Math.max(0, acceptedAt + 3000 - Date.now()) + 100);
    assertAccepted(await getMeals(second, key, QUERY), 998, 'once the interval is over');
  });
});

describe('after a crash (SIGKILL), only the last 5 s of accepted requests may be forgotten', () => {
  /**
   * The store, opened by the test before any request: opening migrates, which takes SQLite's
   * write lock for a moment, and a flush that met it would be refused and wait 5 s more.
   */
  async function openedStore(t: TestContext, db: string): Promise<Storage> {
    const storage = await openStorage(db);
    t.after(() => storage.close());
    return storage;
  }

  /** Waits until the store holds the user's accepted requests of today, within the flush interval. */
  async function untilFlushed(storage: Storage, userId: string, requests: number, since: number): Promise<void> {
    const today = Math.floor(Date.now() / 86_400_000);
    for (;;) {
      const counted = (await storage.quota.listKeyRequests(userId, today, today))[0]?.requests ?? 0;
      if (counted === requests) return;
      const waited = Date.now() - since;
      assert.ok(waited < FLUSH_MS + 1_000, `${counted} of ${requests} requests in the store after ${waited} ms`);
      await sleep(100);
    }
  }

  test('requests accepted 5 s before the crash stay counted: one more accepted after it, then 429', async (t) => {
    const options = { ...DAILY, dataDir: restartableFolder(t) };
    const first = await serve(t, options);
    const userId = newUserId('crash');
    const { key } = await first.createKey(userId);
    const storage = await openedStore(t, first.db);
    assertAccepted(await getMeals(first, key, QUERY), 2, 'first request');
    assertAccepted(await getMeals(first, key, QUERY), 1, 'second request');
    const lastAt = Date.now();
    await untilFlushed(storage, userId, 2, lastAt);
    await sleep(Math.max(0, lastAt + FLUSH_MS - Date.now()));
    await crash(first);

    const second = await serve(t, options);
    assertAccepted(await getMeals(second, key, QUERY), 0, 'third request, after the crash');
    assertQuotaSpent(await getMeals(second, key, QUERY), 'fourth request');
  });

  test('the interval of a request accepted 5 s before the crash still holds after it', async (t) => {
    const options = { dataDir: restartableFolder(t), minIntervalMs: 20_000, dailyLimit: 1000 };
    const first = await serve(t, options);
    const userId = newUserId('crash-interval');
    const { key } = await first.createKey(userId);
    const storage = await openedStore(t, first.db);
    assertAccepted(await getMeals(first, key, QUERY), 999, 'first request');
    const acceptedAt = Date.now();
    await untilFlushed(storage, userId, 1, acceptedAt);
    await sleep(Math.max(0, acceptedAt + FLUSH_MS - Date.now()));
    await crash(first);

    const second = await serve(t, options);
    const refused = await getMeals(second, key, QUERY);
    assertError(refused, 429, 'rate_limited');
    assert.equal(refused.headers['x-ratelimit-remaining'], '999');
    const left = (acceptedAt + 20_000 - Date.now()) / 1000;
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(Math.abs(retryAfter - left) <= 2, `Retry-After ${retryAfter}, the interval ends in ${left} s`);
  });
});
