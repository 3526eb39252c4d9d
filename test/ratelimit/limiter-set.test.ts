import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createInProcessLimiters } from '../../src/ratelimit/limiter-set.js';
import { recordLimiterEvents } from './limiter-recorder.js';

const NOON = Date.UTC(2025, 5, 10, 12);

test('the in-process limiter set decides in memory and reports each decision to the observer', async () => {
  const recorder = recordLimiterEvents();
  const set = createInProcessLimiters({
    policy: { minIntervalMs: 3000, dailyLimit: 10 },
    authFailurePolicy: { maxFailures: 1, windowMs: 60_000 },
    observer: recorder.observer,
  });
  try {
    assert.equal(set.mode(), 'in-process');
    assert.equal((await set.limiter.consume('k1', NOON)).allowed, true);
    assert.equal((await set.limiter.consume('k1', NOON + 1)).allowed, false);
    assert.equal(await set.authFailures.registerFailure('a', NOON), 0);
    // The window runs on the monotonic clock (domain/duration-clock.ts): about 60 s to wait.
    const waitMs = await set.authFailures.registerFailure('a', NOON + 1);
    assert.ok(waitMs > 59_000 && waitMs <= 60_000, `${waitMs} ms`);
    await set.limiter.ping();
    assert.deepEqual(recorder.events, [
      'decision rate memory true',
      'decision rate memory false',
      'decision auth_failures memory true',
      'decision auth_failures memory false',
    ]);
  } finally {
    await set.close();
  }
});
