import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { runRateLimiterSuite } from './rate-limiter.suite.js';

describe('the in-process rate limiter (CONTRACT.md section 4)', () => {
  // One process holds one state: "every instance" is this one limiter.
  runRateLimiterSuite({
    async open(policy) {
      // The suite names instants: the interval is measured on them here.
      const limiter = createMemoryRateLimiter(policy, { clock: 'caller' });
      return { instances: [limiter], close: () => limiter.close() };
    },
  });

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
});
