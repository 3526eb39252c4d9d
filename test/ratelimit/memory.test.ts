import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { runRateLimiterSuite } from './rate-limiter.suite.js';

// One process holds one state: "every instance" is this one limiter. Every case runs.
runRateLimiterSuite({
  name: 'In-process',
  async open(policy) {
    // The suite names instants: the interval is measured on them here.
    const limiter = createMemoryRateLimiter(policy, { clock: 'caller' });
    return { instances: [limiter], close: () => limiter.close() };
  },
});

describe('the in-process rate limiter', () => {
  test('measures the interval on the monotonic clock: a wall clock stepped forward does not skip it, one stepped back does not extend it', async () => {
    const limiter = createMemoryRateLimiter({ minIntervalMs: 200, dailyLimit: 1000 });
    const noon = Date.UTC(2025, 5, 10, 12);
    assert.equal((await limiter.consume('k', noon)).allowed, true);
    const skipped = await limiter.consume('k', noon + 3_600_000);
    assert.equal(skipped.allowed, false, 'an hour on the wall clock is not 200 ms of interval');
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal((await limiter.consume('k', noon - 3_600_000)).allowed, true, 'the wall clock set back an hour');
    await limiter.close();
  });

  test("resumes from the quota used before a restart: the day's count and the interval of the last acceptance", async () => {
    const noon = Date.UTC(2025, 5, 10, 12);
    const limiter = createMemoryRateLimiter(
      { minIntervalMs: 3000, dailyLimit: 3 },
      {
        clock: 'caller',
        used: {
          at: noon,
          keys: [
            { keyId: 'busy', usedToday: 2, lastAcceptedAt: noon - 1000 },
            { keyId: 'spent', usedToday: 3, lastAcceptedAt: undefined },
          ],
        },
      },
    );
    const midnight = Date.UTC(2025, 5, 11);
    assert.deepEqual(await limiter.consume('busy', noon), {
      allowed: false,
      remaining: 1,
      resetAt: midnight,
      retryAfterMs: 2000,
    });
    assert.deepEqual(await limiter.consume('busy', noon + 2000), {
      allowed: true,
      remaining: 0,
      resetAt: midnight,
      retryAfterMs: 0,
    });
    assert.deepEqual(await limiter.consume('spent', noon), {
      allowed: false,
      remaining: 0,
      resetAt: midnight,
      retryAfterMs: midnight - noon,
    });
    assert.equal((await limiter.consume('fresh', noon)).remaining, 2, 'a key not in the store starts its day');
    assert.equal((await limiter.consume('spent', midnight)).allowed, true, 'a new day resets a resumed key');
    await limiter.close();
  });

  test('a resumed last acceptance the wall clock puts in the future holds back one interval, not more', async () => {
    const now = Date.now();
    const limiter = createMemoryRateLimiter(
      { minIntervalMs: 200, dailyLimit: 1000 },
      { used: { at: now, keys: [{ keyId: 'k', usedToday: 1, lastAcceptedAt: now + 3_600_000 }] } },
    );
    const refused = await limiter.consume('k', now);
    assert.equal(refused.allowed, false);
    assert.ok(refused.retryAfterMs <= 200, `waits at most the interval: ${refused.retryAfterMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal((await limiter.consume('k', now)).allowed, true);
    await limiter.close();
  });
});
