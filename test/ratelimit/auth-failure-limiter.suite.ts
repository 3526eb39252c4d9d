import assert from 'node:assert/strict';
import type { AuthFailureLimiter, AuthFailurePolicy } from '../../src/ratelimit/rate-limiter.js';
import { runSharedSuite, type SharedSuiteOptions } from '../support/shared-suite.js';
import { type OpenedInstances, withOpened } from './opened-instances.js';

/**
 * The behaviour every AuthFailureLimiter adapter owes (docs/api.md#limits), run by one small
 * test file per adapter. The cases pass explicit instants: an adapter must decide at the `now`
 * it is given (the Redis adapter's test file opens it with the caller's clock).
 */
export interface AuthFailureLimiterSuiteOptions extends SharedSuiteOptions {
  /**
   * Guards over one fresh state, one per service instance (one for an in-process adapter,
   * several for a shared one); without a policy, the adapter's default.
   */
  open(policy?: AuthFailurePolicy): Promise<OpenedAuthFailureLimiters>;
}

export type OpenedAuthFailureLimiters = OpenedInstances<AuthFailureLimiter>;

const T0 = Date.UTC(2025, 5, 10, 12);

export function runAuthFailureLimiterSuite(options: AuthFailureLimiterSuiteOptions): void {
  const withGuards = (
    policy: AuthFailurePolicy | undefined,
    work: (guard: AuthFailureLimiter, instances: readonly AuthFailureLimiter[]) => Promise<void>,
  ) => withOpened(options.open(policy), work);

  runSharedSuite(options, 'brute-force guard: what every adapter owes', ({ test }) => {
    test('records 20 failures from one address, each answered with 401 (0 ms to wait)', async () => {
      await withGuards(undefined, async (guard) => {
        for (let i = 0; i < 20; i += 1) assert.equal(await guard.registerFailure('203.0.113.1', T0 + i * 1000), 0);
      });
    });

    test('the 21st failure within 60 s waits until the oldest failure leaves the window', async () => {
      await withGuards(undefined, async (guard) => {
        for (let i = 0; i < 20; i += 1) await guard.registerFailure('203.0.113.1', T0 + i * 1000);
        assert.equal(await guard.registerFailure('203.0.113.1', T0 + 20_000), 40_000);
        assert.equal(await guard.registerFailure('203.0.113.1', T0 + 59_999), 1);
        assert.equal(await guard.registerFailure('203.0.113.1', T0 + 60_000), 0);
      });
    });

    test('refused attempts are not recorded, so they do not extend the block', async () => {
      await withGuards(undefined, async (guard) => {
        for (let i = 0; i < 20; i += 1) await guard.registerFailure('a', T0);
        for (let t = T0 + 1; t < T0 + 60_000; t += 997) assert.ok((await guard.registerFailure('a', t)) > 0);
        assert.equal(await guard.registerFailure('a', T0 + 60_000), 0);
      });
    });

    test('a burst of 25 at once, spread over every instance, records 20 and blocks for the full 60 s', async () => {
      await withGuards(undefined, async (_, instances) => {
        const waits = await Promise.all(
          Array.from({ length: 25 }, (_, i) => instances[i % instances.length]!.registerFailure('a', T0)),
        );
        assert.equal(waits.filter((wait) => wait === 0).length, 20);
        assert.deepEqual(
          waits.filter((wait) => wait !== 0),
          [60_000, 60_000, 60_000, 60_000, 60_000],
        );
        assert.equal(await instances[0]!.registerFailure('a', T0 + 60_000), 0);
      });
    });

    test('addresses are counted independently', async () => {
      await withGuards(undefined, async (guard) => {
        for (let i = 0; i < 20; i += 1) await guard.registerFailure('198.51.100.7', T0);
        assert.ok((await guard.registerFailure('198.51.100.7', T0 + 1)) > 0);
        assert.equal(await guard.registerFailure('198.51.100.8', T0 + 1), 0);
        assert.equal(await guard.registerFailure('::1', T0 + 1), 0);
      });
    });

    test('IPv6 addresses count by their /64: rotating inside one does not get around the guard', async () => {
      await withGuards(undefined, async (guard) => {
        for (let i = 0; i < 20; i += 1) await guard.registerFailure(`2001:db8:1:2:${i.toString(16)}::1`, T0);
        assert.ok((await guard.registerFailure('2001:DB8:1:2:ffff:ffff:ffff:ffff', T0 + 1)) > 0);
        assert.ok((await guard.registerFailure('2001:db8:1:2::7%eth0', T0 + 1)) > 0);
        assert.equal(await guard.registerFailure('2001:db8:1:3::1', T0 + 1), 0, 'the next /64 is another client');
      });
    });

    test('an IPv4 address written as IPv6 by a dual-stack socket is that IPv4 address', async () => {
      await withGuards(undefined, async (guard) => {
        for (let i = 0; i < 20; i += 1) await guard.registerFailure('::ffff:203.0.113.9', T0);
        assert.ok((await guard.registerFailure('203.0.113.9', T0 + 1)) > 0);
      });
    });

    test('failures spread over more than 60 s never block', async () => {
      await withGuards(undefined, async (guard) => {
        for (let i = 0; i < 200; i += 1)
          assert.equal(await guard.registerFailure('a', T0 + i * 3001), 0, `failure ${i}`);
      });
    });

    test('a custom policy is honoured', async () => {
      await withGuards({ maxFailures: 2, windowMs: 1000 }, async (guard) => {
        assert.equal(await guard.registerFailure('a', T0), 0);
        assert.equal(await guard.registerFailure('a', T0 + 100), 0);
        assert.equal(await guard.registerFailure('a', T0 + 200), 800);
        assert.equal(await guard.registerFailure('a', T0 + 1000), 0);
        assert.equal(await guard.registerFailure('a', T0 + 1050), 50);
      });
    });
  });
}
