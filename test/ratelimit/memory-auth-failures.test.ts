import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMemoryAuthFailureLimiter } from '../../src/ratelimit/memory-auth-failures.js';
import { runAuthFailureLimiterSuite } from './auth-failure-limiter.suite.js';

// One process holds one state: "every instance" is this one guard. Every case runs.
runAuthFailureLimiterSuite({
  name: 'In-process',
  async open(policy) {
    // The suite names instants: the window is measured on them here.
    const guard = createMemoryAuthFailureLimiter(policy, { clock: 'caller' });
    return { instances: [guard], close: () => guard.close() };
  },
});

describe('the in-process brute-force guard', () => {
  test('remembers at most maxAddresses addresses: a flood of addresses failing once cannot grow it without bound', async () => {
    const guard = createMemoryAuthFailureLimiter(undefined, { maxAddresses: 1000, clock: 'caller' });
    const t0 = Date.UTC(2025, 5, 10, 12);
    for (let i = 0; i < 50_000; i += 1) {
      await guard.registerFailure(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, t0 + i);
    }
    assert.equal(guard.size, 1000);
    // The most recent offenders are the ones kept: the last address is still blocked after 20.
    for (let i = 0; i < 19; i += 1) await guard.registerFailure('10.0.195.79', t0 + 50_000);
    assert.ok((await guard.registerFailure('10.0.195.79', t0 + 50_001)) > 0);
    await guard.close();
  });

  test('measures the window on the monotonic clock: a wall clock set back an hour does not extend a block', async () => {
    const guard = createMemoryAuthFailureLimiter({ maxFailures: 2, windowMs: 200 });
    const t0 = Date.UTC(2025, 5, 10, 12);
    await guard.registerFailure('203.0.113.5', t0);
    await guard.registerFailure('203.0.113.5', t0);
    assert.ok((await guard.registerFailure('203.0.113.5', t0)) > 0);
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal(await guard.registerFailure('203.0.113.5', t0 - 3_600_000), 0);
    await guard.close();
  });
});
