import assert from 'node:assert/strict';
import type { RateLimiter, RateLimitPolicy } from '../../src/ratelimit/rate-limiter.js';
import { runSharedSuite, type SharedSuiteOptions } from '../support/shared-suite.js';
import { type OpenedInstances, withOpened } from './opened-instances.js';

/**
 * The behaviour every RateLimiter adapter owes (docs/api.md#limits), run by one small test
 * file per adapter, after Hono's `runTest({ newRouter })`. The cases pass explicit instants
 * (noon, midnight, days later): an adapter must decide at the `now` it is given. The Redis
 * adapter decides on Redis `TIME` in service, so its test file opens it with the caller's
 * clock, and tests the Redis clock on its own.
 */
export interface RateLimiterSuiteOptions extends SharedSuiteOptions {
  /**
   * Limiters over one fresh state, one per service instance: one for an in-process adapter
   * (a process has one state), several for a shared one, each on its own connection.
   */
  open(policy: RateLimitPolicy): Promise<OpenedRateLimiters>;
}

export type OpenedRateLimiters = OpenedInstances<RateLimiter>;

const SPEC: RateLimitPolicy = { minIntervalMs: 3000, dailyLimit: 1000 };
const DAY = 86_400_000;
const NOON = Date.UTC(2025, 5, 10, 12);
const MIDNIGHT = Date.UTC(2025, 5, 11);

function spread(instances: readonly RateLimiter[], i: number): RateLimiter {
  return instances[i % instances.length]!;
}

export function runRateLimiterSuite(options: RateLimiterSuiteOptions): void {
  const withLimiters = (
    policy: RateLimitPolicy,
    work: (limiter: RateLimiter, instances: readonly RateLimiter[]) => Promise<void>,
  ) => withOpened(options.open(policy), work);

  runSharedSuite(options, 'rate limiter: what every adapter owes', ({ test }) => {
    test('accepts a first request and reports the quota left today and the next UTC midnight', async () => {
      await withLimiters(SPEC, async (limiter) => {
        assert.deepEqual(await limiter.consume('k1', NOON), {
          allowed: true,
          remaining: 999,
          resetAt: MIDNIGHT,
          retryAfterMs: 0,
        });
      });
    });

    test('refuses a request before the interval is over, with the wait until it is', async () => {
      await withLimiters(SPEC, async (limiter) => {
        assert.equal((await limiter.consume('k1', NOON)).allowed, true);
        const refused = await limiter.consume('k1', NOON + 1000);
        assert.deepEqual(refused, { allowed: false, remaining: 999, resetAt: MIDNIGHT, retryAfterMs: 2000 });
        assert.equal((await limiter.consume('k1', NOON + 2999)).retryAfterMs, 1);
        assert.equal((await limiter.consume('k1', NOON + 3000)).allowed, true);
      });
    });

    test('a refused request does not count: neither toward the interval nor the daily quota', async () => {
      await withLimiters(SPEC, async (limiter) => {
        await limiter.consume('k1', NOON);
        for (let t = NOON + 100; t < NOON + 3000; t += 100)
          assert.equal((await limiter.consume('k1', t)).allowed, false);
        const next = await limiter.consume('k1', NOON + 3000);
        assert.equal(next.allowed, true);
        assert.equal(next.remaining, 998);
      });
    });

    test('after the daily limit, refuses until the next 00:00:00Z and then accepts again', async () => {
      await withLimiters({ minIntervalMs: 0, dailyLimit: 3 }, async (limiter) => {
        const remaining: number[] = [];
        for (let i = 0; i < 3; i += 1) {
          const decision = await limiter.consume('k1', NOON + i);
          assert.equal(decision.allowed, true);
          remaining.push(decision.remaining);
        }
        assert.deepEqual(remaining, [2, 1, 0]);
        const refused = await limiter.consume('k1', NOON + 10);
        assert.deepEqual(refused, {
          allowed: false,
          remaining: 0,
          resetAt: MIDNIGHT,
          retryAfterMs: MIDNIGHT - NOON - 10,
        });
        assert.equal((await limiter.consume('k1', MIDNIGHT - 1)).allowed, false);
        const nextDay = await limiter.consume('k1', MIDNIGHT);
        assert.deepEqual(nextDay, { allowed: true, remaining: 2, resetAt: MIDNIGHT + DAY, retryAfterMs: 0 });
      });
    });

    test('the count starts over on each UTC day, even when the key was last used days ago', async () => {
      await withLimiters({ minIntervalMs: 1000, dailyLimit: 2 }, async (limiter) => {
        await limiter.consume('k1', MIDNIGHT - 5000);
        await limiter.consume('k1', MIDNIGHT - 2000);
        assert.equal((await limiter.consume('k1', MIDNIGHT - 500)).allowed, false);
        const afterMidnight = await limiter.consume('k1', MIDNIGHT + 1);
        assert.equal(afterMidnight.allowed, true);
        assert.equal(afterMidnight.remaining, 1);
        const later = await limiter.consume('k1', MIDNIGHT + 3 * DAY + 7);
        assert.deepEqual(later, { allowed: true, remaining: 1, resetAt: MIDNIGHT + 4 * DAY, retryAfterMs: 0 });
      });
    });

    // Retry-After tells "when the next request will be accepted" (section 4): when the day is
    // used up just before midnight, the interval may still be running after the reset.
    test('when the daily quota ends just before midnight, the wait covers an interval still running after it', async () => {
      await withLimiters({ minIntervalMs: 3000, dailyLimit: 1 }, async (limiter) => {
        assert.equal((await limiter.consume('k1', MIDNIGHT - 1000)).allowed, true);
        const refused = await limiter.consume('k1', MIDNIGHT - 500);
        assert.equal(refused.allowed, false);
        assert.equal(refused.retryAfterMs, 2500);
        const retryAt = MIDNIGHT - 500 + refused.retryAfterMs;
        assert.equal((await limiter.consume('k1', retryAt - 1)).allowed, false);
        assert.equal((await limiter.consume('k1', retryAt)).allowed, true, `retry at +${refused.retryAfterMs} ms`);
      });
    });

    test('when a refused request is retried after exactly retryAfterMs, it is accepted', async () => {
      await withLimiters(SPEC, async (limiter) => {
        await limiter.consume('k1', NOON);
        const refused = await limiter.consume('k1', NOON + 1234);
        assert.equal((await limiter.consume('k1', NOON + 1234 + refused.retryAfterMs)).allowed, true);
      });
    });

    test('of 100 simultaneous requests with one key, spread over every instance, exactly one is accepted', async () => {
      await withLimiters(SPEC, async (_, instances) => {
        const decisions = await Promise.all(
          Array.from({ length: 100 }, (_, i) => spread(instances, i).consume('k1', NOON)),
        );
        assert.equal(decisions.filter((d) => d.allowed).length, 1);
        for (const d of decisions.filter((d) => !d.allowed)) assert.equal(d.retryAfterMs, 3000);
      });
    });

    test('of 100 requests in flight with slightly different clocks exactly one is accepted', async () => {
      await withLimiters(SPEC, async (_, instances) => {
        const decisions = await Promise.all(
          Array.from({ length: 100 }, (_, i) => spread(instances, i).consume('k1', NOON + i)),
        );
        assert.equal(decisions.filter((d) => d.allowed).length, 1);
      });
    });

    test('separate keys are limited independently', async () => {
      await withLimiters({ minIntervalMs: 3000, dailyLimit: 2 }, async (limiter) => {
        const decisions = await Promise.all(['k1', 'k2', 'k3'].map((key) => limiter.consume(key, NOON)));
        assert.deepEqual(
          decisions.map((d) => d.allowed),
          [true, true, true],
        );
        assert.equal((await limiter.consume('k1', NOON + 3000)).remaining, 0);
        assert.equal((await limiter.consume('k1', NOON + 6000)).allowed, false);
        assert.equal((await limiter.consume('k2', NOON + 6000)).allowed, true);
      });
    });

    test('with minIntervalMs 0 only the daily limit applies, even to simultaneous requests', async () => {
      await withLimiters({ minIntervalMs: 0, dailyLimit: 10 }, async (_, instances) => {
        const decisions = await Promise.all(
          Array.from({ length: 15 }, (_, i) => spread(instances, i).consume('k1', NOON)),
        );
        const accepted = decisions.filter((d) => d.allowed);
        // Each accepted request saw its own count: the remainders are 9 down to 0, once each.
        assert.deepEqual(
          accepted.map((d) => d.remaining).sort((a, b) => b - a),
          [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
        );
        for (const d of decisions.filter((d) => !d.allowed)) assert.equal(d.retryAfterMs, MIDNIGHT - NOON);
      });
    });

    test('a key idle since yesterday gets a fresh daily quota while other keys are used', async () => {
      await withLimiters({ minIntervalMs: 3000, dailyLimit: 1 }, async (limiter) => {
        await limiter.consume('k1', NOON);
        await limiter.consume('k2', MIDNIGHT + 10 * 60_000);
        const back = await limiter.consume('k1', MIDNIGHT + 20 * 60_000);
        assert.deepEqual(back, { allowed: true, remaining: 0, resetAt: MIDNIGHT + DAY, retryAfterMs: 0 });
      });
    });

    // GET /v1/key reads where a key stands without spending a request (docs/api.md#your-key-and-its-limits).
    test('a peek of a key never used: the whole quota, the next UTC midnight, and no wait', async () => {
      await withLimiters(SPEC, async (limiter) => {
        assert.deepEqual(await limiter.peek('k1', NOON), { remaining: 1000, resetAt: MIDNIGHT, waitMs: 0 });
      });
    });

    test('a peek consumes nothing: after peeks the first request is accepted and counts once', async () => {
      await withLimiters(SPEC, async (limiter) => {
        for (let i = 0; i < 5; i += 1) await limiter.peek('k1', NOON + i);
        assert.deepEqual(await limiter.consume('k1', NOON + 10), {
          allowed: true,
          remaining: 999,
          resetAt: MIDNIGHT,
          retryAfterMs: 0,
        });
        for (let i = 0; i < 5; i += 1) await limiter.peek('k1', NOON + 3010 + i);
        assert.equal(
          (await limiter.consume('k1', NOON + 3010)).remaining,
          998,
          'peeks neither count nor hold the interval',
        );
      });
    });

    test('a peek says what a consume at the same instant would decide, without deciding it', async () => {
      await withLimiters(SPEC, async (limiter) => {
        await limiter.consume('k1', NOON);
        assert.deepEqual(await limiter.peek('k1', NOON + 1000), { remaining: 999, resetAt: MIDNIGHT, waitMs: 2000 });
        const refused = await limiter.consume('k1', NOON + 1000);
        assert.equal(refused.retryAfterMs, 2000);
        assert.deepEqual(await limiter.peek('k1', NOON + 3000), { remaining: 999, resetAt: MIDNIGHT, waitMs: 0 });
        assert.equal((await limiter.consume('k1', NOON + 3000)).allowed, true);
      });
    });

    test('with the daily quota used up, a peek waits until the next UTC midnight, and then sees a fresh day', async () => {
      await withLimiters({ minIntervalMs: 0, dailyLimit: 2 }, async (limiter) => {
        await limiter.consume('k1', NOON);
        await limiter.consume('k1', NOON + 1);
        const spent = await limiter.peek('k1', NOON + 10);
        assert.deepEqual(spent, { remaining: 0, resetAt: MIDNIGHT, waitMs: MIDNIGHT - NOON - 10 });
        assert.equal(NOON + 10 + spent.waitMs, spent.resetAt);
        assert.deepEqual(await limiter.peek('k1', MIDNIGHT), { remaining: 2, resetAt: MIDNIGHT + DAY, waitMs: 0 });
      });
    });

    test('a peek after midnight counts the new day, while an interval begun before it still runs', async () => {
      await withLimiters({ minIntervalMs: 3000, dailyLimit: 1 }, async (limiter) => {
        await limiter.consume('k1', MIDNIGHT - 1000);
        assert.deepEqual(await limiter.peek('k1', MIDNIGHT - 500), { remaining: 0, resetAt: MIDNIGHT, waitMs: 2500 });
        assert.deepEqual(await limiter.peek('k1', MIDNIGHT + 500), {
          remaining: 1,
          resetAt: MIDNIGHT + DAY,
          waitMs: 1500,
        });
      });
    });

    test('a peek on any instance reads what every instance consumed, exactly', async () => {
      await withLimiters(SPEC, async (_, instances) => {
        assert.equal((await spread(instances, 0).consume('k1', NOON)).allowed, true);
        assert.equal((await spread(instances, 1).consume('k1', NOON + 3000)).allowed, true);
        const standings = await Promise.all(instances.map((instance) => instance.peek('k1', NOON + 4000)));
        for (const standing of standings)
          assert.deepEqual(standing, { remaining: 998, resetAt: MIDNIGHT, waitMs: 2000 });
      });
    });

    test('peeks in flight beside simultaneous requests change no decision: exactly one is accepted', async () => {
      await withLimiters(SPEC, async (_, instances) => {
        const calls = Array.from({ length: 60 }, (_, i) =>
          i % 3 === 0 ? spread(instances, i).consume('k1', NOON) : spread(instances, i).peek('k1', NOON),
        );
        const answers = await Promise.all(calls);
        assert.equal(answers.filter((a) => 'allowed' in a && a.allowed).length, 1);
        assert.deepEqual(await spread(instances, 1).peek('k1', NOON), {
          remaining: 999,
          resetAt: MIDNIGHT,
          waitMs: 3000,
        });
      });
    });
  });
}
