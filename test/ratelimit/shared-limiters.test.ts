import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import type { LimiterSet } from '../../src/ratelimit/limiter-set.js';
import type { RateLimitPolicy } from '../../src/ratelimit/rate-limiter.js';
import { createSharedLimiters } from '../../src/ratelimit/shared-limiters.js';
import {
  connectTestRedis,
  type PrivateRedisServer,
  redisServerSkipReason,
  startPrivateRedisServer,
  uniqueTestPrefix,
} from '../support/redis.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { waitFor } from '../support/wait-for.js';
import { type LimiterRecorder, recordLimiterEvents } from './limiter-recorder.js';

// The scale-out limiters end to end, on a private redis-server of this test's own (it gets stopped)
// behind a TCP proxy that can cut the link (the fallback:
// docs/operations.md#scale-out-many-instances-on-postgresql-and-redis).
const skip = redisServerSkipReason();

const ONE_A_MINUTE: RateLimitPolicy = { minIntervalMs: 60_000, dailyLimit: 1000 };
// The contract's bound for one request with Redis down; the limiters give up on Redis after 500 ms.
const FALLBACK_BOUND_MS = 1000;

/** Runs `work`, failing when it takes longer than the contract allows a request to wait. */
async function withinFallbackBound<T>(what: string, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const value = await work();
  const ms = performance.now() - start;
  assert.ok(ms < FALLBACK_BOUND_MS, `${what} took ${Math.round(ms)} ms`);
  return value;
}

describe('the shared limiters and their fallback', { skip: skip ?? false }, () => {
  let server: PrivateRedisServer;
  let direct: Redis;
  const opened: LimiterSet[] = [];

  before(async () => {
    server = await startPrivateRedisServer();
    direct = connectTestRedis(server.url);
  });

  after(async () => {
    await Promise.all(opened.map((set) => set.close()));
    direct.disconnect();
    await server.close();
  });

  async function open(url: string, recorder: LimiterRecorder, prefix: string, policy = ONE_A_MINUTE) {
    const set = await createSharedLimiters({
      url,
      prefix,
      policy,
      authFailurePolicy: { maxFailures: 2, windowMs: 60_000 },
      log: recorder.log,
      observer: recorder.observer,
    });
    opened.push(set);
    return set;
  }

  test('with Redis answering, both limiters decide there, shared by every instance on the prefix', async () => {
    const prefix = uniqueTestPrefix('shared');
    const [ra, rb] = [recordLimiterEvents(), recordLimiterEvents()];
    const [a, b] = [await open(server.url, ra, prefix), await open(server.url, rb, prefix)];
    assert.equal(a.mode(), 'shared');
    assert.equal((await a.limiter.consume('k1', Date.now())).allowed, true);
    assert.equal((await b.limiter.consume('k1', Date.now())).allowed, false, 'the other instance sees the use');
    assert.equal(await a.authFailures.registerFailure('203.0.113.9', Date.now()), 0);
    assert.equal(await b.authFailures.registerFailure('203.0.113.9', Date.now()), 0);
    assert.ok((await a.authFailures.registerFailure('203.0.113.9', Date.now())) > 0);
    assert.deepEqual(ra.events, [
      'decision rate redis true',
      'decision auth_failures redis true',
      'decision auth_failures redis false',
    ]);
    assert.deepEqual(rb.events, ['decision rate redis false', 'decision auth_failures redis true']);
    assert.equal(await direct.exists(`${prefix}rate:{k1}`), 1);
  });

  test('when the link to Redis stalls, no decision waits over 1 s, the instance decides alone, logs and reports the switch once, and returns to Redis by itself', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port });
    try {
      const prefix = uniqueTestPrefix('stall');
      const recorder = recordLimiterEvents();
      const set = await open(`redis://127.0.0.1:${proxy.port}`, recorder, prefix);
      assert.equal((await set.limiter.consume('before', Date.now())).allowed, true);

      proxy.cut('stall');
      for (let i = 0; i < 5; i += 1) {
        const decision = await withinFallbackBound(`consume ${i}`, () => set.limiter.consume(`k${i}`, Date.now()));
        assert.equal(decision.allowed, true);
        assert.equal(
          await withinFallbackBound(`failure ${i}`, () => set.authFailures.registerFailure(`a${i}`, Date.now())),
          0,
        );
      }
      // The in-process limiter applies the same limits meanwhile.
      const burst = await Promise.all(
        Array.from({ length: 20 }, () => withinFallbackBound('burst', () => set.limiter.consume('kb', Date.now()))),
      );
      assert.equal(burst.filter((d) => d.allowed).length, 1);
      await withinFallbackBound('ping', () => set.limiter.ping());
      assert.equal(set.mode(), 'fallback');
      assert.equal(recorder.count('fallback rate'), 1);
      assert.equal(recorder.count('fallback auth_failures'), 1);
      assert.equal(recorder.count('warn '), 2);
      assert.equal(recorder.lastDecision('rate'), 'decision rate memory false');

      proxy.restore();
      await waitFor('the limiters back on Redis', () => set.mode() === 'shared', 15_000);
      assert.equal(recorder.count('recovered rate'), 1);
      assert.equal(recorder.count('recovered auth_failures'), 1);
      assert.equal(recorder.count('info '), 2);
      assert.equal((await set.limiter.consume('after', Date.now())).allowed, true);
      assert.equal(recorder.lastDecision('rate'), 'decision rate redis true');
      assert.equal(await direct.exists(`${prefix}rate:{after}`), 1);
      assert.ok(!recorder.events.some((event) => event.includes('redis://')), 'the URL is never logged');
    } finally {
      await proxy.close();
    }
  });

  test('starts within about a second when Redis does not answer, in fallback, and moves to Redis once it answers', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port });
    try {
      proxy.cut('stall');
      const recorder = recordLimiterEvents();
      const start = performance.now();
      const set = await open(`redis://127.0.0.1:${proxy.port}`, recorder, uniqueTestPrefix('start'));
      assert.ok(performance.now() - start < 3000, `started in ${Math.round(performance.now() - start)} ms`);
      assert.equal(set.mode(), 'fallback');
      assert.deepEqual(
        recorder.events.filter((event) => event.startsWith('fallback')),
        ['fallback rate', 'fallback auth_failures'],
      );
      await withinFallbackBound('consume', () => set.limiter.consume('k1', Date.now()));
      assert.equal(recorder.lastDecision('rate'), 'decision rate memory true');
      // A peek reads the same in-process state that decided, within the same bound, and counts nothing.
      const standing = await withinFallbackBound('peek', () => set.limiter.peek('k1', Date.now()));
      assert.equal(standing.remaining, 999);
      assert.ok(standing.waitMs > 0 && standing.waitMs <= 60_000, `${standing.waitMs}`);

      proxy.restore();
      await waitFor('the limiters on Redis', () => set.mode() === 'shared', 15_000);
      await set.limiter.consume('k2', Date.now());
      assert.equal(recorder.lastDecision('rate'), 'decision rate redis true');
    } finally {
      await proxy.close();
    }
  });

  test('close() returns promptly while Redis does not answer', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port });
    try {
      const set = await open(`redis://127.0.0.1:${proxy.port}`, recordLimiterEvents(), uniqueTestPrefix('close'));
      proxy.cut('stall');
      await set.limiter.consume('k1', Date.now());
      const start = performance.now();
      await set.close();
      assert.ok(performance.now() - start < 2000, `closed in ${Math.round(performance.now() - start)} ms`);
    } finally {
      await proxy.close();
    }
  });

  // Last: it stops the server.
  test('when Redis stops, decisions fail over at once; when it starts again empty, they come from Redis again', async () => {
    const prefix = uniqueTestPrefix('restart');
    const recorder = recordLimiterEvents();
    const set = await open(server.url, recorder, prefix);
    await set.limiter.consume('k1', Date.now());
    assert.equal(recorder.lastDecision('rate'), 'decision rate redis true');

    await server.stop();
    await withinFallbackBound('consume', () => set.limiter.consume('k2', Date.now()));
    assert.equal(recorder.lastDecision('rate'), 'decision rate memory true');
    assert.equal(set.mode(), 'fallback');

    // A restarted Redis knows no script: the first EVALSHA fails with NOSCRIPT and is sent again as EVAL.
    await server.start();
    await waitFor('the limiters back on Redis', () => set.mode() === 'shared', 15_000);
    assert.equal((await set.limiter.consume('k3', Date.now())).allowed, true);
    assert.equal(recorder.lastDecision('rate'), 'decision rate redis true');
    assert.equal(await direct.exists(`${prefix}rate:{k3}`), 1);
    assert.match(await direct.info('commandstats'), /cmdstat_eval:calls=[1-9]/);
    assert.equal(recorder.count('fallback rate'), 1);
    assert.equal(recorder.count('recovered rate'), 1);
  });
});
