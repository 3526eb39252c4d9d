import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMemoryAuthFailureLimiter } from '../../src/ratelimit/memory-auth-failures.js';
import { runAuthFailureLimiterSuite } from './auth-failure-limiter.suite.js';

describe('the in-process brute-force guard (CONTRACT.md section 3)', () => {
  // One process holds one state: "every instance" is this one guard.
  runAuthFailureLimiterSuite({
    async open(policy) {
      const guard = createMemoryAuthFailureLimiter(policy);
      return { instances: [guard], close: () => guard.close() };
    },
  });

  test('remembers at most maxAddresses addresses: a flood of addresses failing once cannot grow it without bound', async () => {
    const guard = createMemoryAuthFailureLimiter(undefined, { maxAddresses: 1000 });
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
});
