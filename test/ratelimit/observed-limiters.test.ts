import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LimiterObserver } from '../../src/ratelimit/limiter-observer.js';
import { createMemoryAuthFailureLimiter } from '../../src/ratelimit/memory-auth-failures.js';
import { createMemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { observeAuthFailureLimiter, observeRateLimiter } from '../../src/ratelimit/observed-limiters.js';

function recordingObserver(seen: string[]): LimiterObserver {
  return {
    decision: (limiter, backend, allowed) => seen.push(`${limiter} ${backend} ${allowed ? 'allowed' : 'refused'}`),
    fallback: (limiter) => seen.push(`${limiter} fallback`),
    recovered: (limiter) => seen.push(`${limiter} recovered`),
  };
}

test('the in-process limiters report each decision with backend memory, and decide as before', async () => {
  const seen: string[] = [];
  const observer = recordingObserver(seen);
  const rate = observeRateLimiter(
    createMemoryRateLimiter({ minIntervalMs: 3000, dailyLimit: 10 }, { clock: 'caller' }),
    observer,
  );
  const now = Date.UTC(2025, 5, 10, 12);
  assert.equal((await rate.consume('k', now)).allowed, true);
  const refused = await rate.consume('k', now + 1000);
  assert.equal(refused.allowed, false);
  assert.equal(refused.retryAfterMs, 2000);

  const guard = observeAuthFailureLimiter(
    createMemoryAuthFailureLimiter({ maxFailures: 1, windowMs: 60_000 }, { clock: 'caller' }),
    observer,
  );
  assert.equal(await guard.registerFailure('10.0.0.1', now), 0);
  assert.equal(await guard.registerFailure('10.0.0.1', now + 1), 59_999);
  assert.deepEqual(seen, [
    'rate memory allowed',
    'rate memory refused',
    'auth_failures memory allowed',
    'auth_failures memory refused',
  ]);
  await Promise.all([rate.close(), guard.close()]);
});
