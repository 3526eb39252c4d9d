import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMemoryAuthFailureLimiter } from '../../src/ratelimit/memory-auth-failures.js';
import { AUTH_FAILURE_POLICY } from '../../src/ratelimit/rate-limiter.js';

const T0 = Date.UTC(2025, 5, 10, 12);

describe('the in-process brute-force guard (CONTRACT.md section 3)', () => {
  test('the policy is 20 failures within 60 s', () => {
    assert.deepEqual(AUTH_FAILURE_POLICY, { maxFailures: 20, windowMs: 60_000 });
  });

  test('records 20 failures from one address, each answered with 401 (0 ms to wait)', async () => {
    const guard = createMemoryAuthFailureLimiter();
    for (let i = 0; i < 20; i += 1) assert.equal(await guard.registerFailure('203.0.113.1', T0 + i * 1000), 0);
    await guard.close();
  });

  test('the 21st failure within 60 s waits until the oldest failure leaves the window', async () => {
    const guard = createMemoryAuthFailureLimiter();
    for (let i = 0; i < 20; i += 1) await guard.registerFailure('203.0.113.1', T0 + i * 1000);
    assert.equal(await guard.registerFailure('203.0.113.1', T0 + 20_000), 40_000);
    assert.equal(await guard.registerFailure('203.0.113.1', T0 + 59_999), 1);
    await guard.close();
  });

  test('refused attempts are not recorded, so they do not extend the block', async () => {
    const guard = createMemoryAuthFailureLimiter();
    for (let i = 0; i < 20; i += 1) await guard.registerFailure('a', T0);
    for (let t = T0 + 1; t < T0 + 60_000; t += 997) assert.ok((await guard.registerFailure('a', t)) > 0);
    assert.equal(await guard.registerFailure('a', T0 + 60_000), 0);
    await guard.close();
  });

  test('a burst of 20 at once blocks for the full 60 s, then the address may try again', async () => {
    const guard = createMemoryAuthFailureLimiter();
    const recorded = await Promise.all(Array.from({ length: 25 }, () => guard.registerFailure('a', T0)));
    assert.equal(recorded.filter((wait) => wait === 0).length, 20);
    assert.deepEqual(recorded.slice(20), [60_000, 60_000, 60_000, 60_000, 60_000]);
    assert.equal(await guard.registerFailure('a', T0 + 60_000), 0);
    await guard.close();
  });

  test('addresses are counted independently', async () => {
    const guard = createMemoryAuthFailureLimiter();
    for (let i = 0; i < 20; i += 1) await guard.registerFailure('198.51.100.7', T0);
    assert.ok((await guard.registerFailure('198.51.100.7', T0 + 1)) > 0);
    assert.equal(await guard.registerFailure('198.51.100.8', T0 + 1), 0);
    assert.equal(await guard.registerFailure('::1', T0 + 1), 0);
    await guard.close();
  });

  test('failures spread over more than 60 s never block', async () => {
    const guard = createMemoryAuthFailureLimiter();
    for (let i = 0; i < 200; i += 1) assert.equal(await guard.registerFailure('a', T0 + i * 3001), 0, `failure ${i}`);
    await guard.close();
  });

  test('a custom policy is honoured', async () => {
    // The parameter's type is inferred from the `as const` default (literally 20 and 60000),
    // so another policy needs a cast until src/ratelimit/memory-auth-failures.ts declares a type.
    const policy = { maxFailures: 2, windowMs: 1000 } as unknown as typeof AUTH_FAILURE_POLICY;
    const guard = createMemoryAuthFailureLimiter(policy);
    assert.equal(await guard.registerFailure('a', T0), 0);
    assert.equal(await guard.registerFailure('a', T0 + 100), 0);
    assert.equal(await guard.registerFailure('a', T0 + 200), 800);
    assert.equal(await guard.registerFailure('a', T0 + 1000), 0);
    assert.equal(await guard.registerFailure('a', T0 + 1050), 50);
    await guard.close();
  });
});
