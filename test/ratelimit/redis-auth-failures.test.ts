import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRedisAuthFailureLimiter } from '../../src/ratelimit/redis-auth-failures.js';
import { keysUnder, redisSkipReason, useTestRedisPair } from '../support/redis.js';
import { runAuthFailureLimiterSuite } from './auth-failure-limiter.suite.js';
import { openOnTestRedis } from './opened-instances.js';

// On the machine's Redis (or MEAL_EXPORT_TEST_REDIS_URL), under a fresh random prefix per case,
// deleted afterwards. Without Redis these tests are skipped with the reason.
const unavailable = await redisSkipReason();

// Every case runs. The cases pass explicit instants a minute apart that Redis TIME cannot reach
// in a test, so the guards are opened with the test-only caller clock: the same script runs,
// only `now` comes from the argument. The Redis clock is tested below.
runAuthFailureLimiterSuite({
  name: 'Redis',
  unavailable,
  open: (policy) =>
    openOnTestRedis('auth', (redis, prefix) =>
      createRedisAuthFailureLimiter({ redis, prefix, clock: 'caller', ...(policy && { policy }) }),
    ),
});

describe('the Redis brute-force guard', { skip: unavailable ?? false }, () => {
  // Two connections: two service instances sharing one Redis.
  const pair = useTestRedisPair('auth');

  test('decides on Redis TIME and blocks for the window on real elapsed time', async () => {
    const guard = createRedisAuthFailureLimiter({
      redis: pair.connections[0],
      policy: { maxFailures: 2, windowMs: 1000 },
      prefix: pair.freshPrefix(),
    });
    // Instants a year apart by the caller clock are one moment by Redis TIME.
    assert.equal(await guard.registerFailure('a', Date.UTC(2000, 0, 1)), 0);
    assert.equal(await guard.registerFailure('a', Date.UTC(2001, 0, 1)), 0);
    const waitMs = await guard.registerFailure('a', 0);
    assert.ok(waitMs > 0 && waitMs <= 1000, `${waitMs}`);
    await new Promise((resolve) => setTimeout(resolve, waitMs + 20));
    assert.equal(await guard.registerFailure('a', 0), 0);
  });

  test('keeps one hash-tagged key per address (IPv6: per /64) under the prefix, expiring one window after the last failure', async () => {
    const prefix = pair.freshPrefix();
    const guard = createRedisAuthFailureLimiter({ redis: pair.connections[0], prefix });
    await guard.registerFailure('2001:db8::1', Date.now());
    await guard.registerFailure('2001:db8::2', Date.now());
    assert.deepEqual(await keysUnder(pair.connections[0], prefix), [`${prefix}auth-failures:{2001:db8:0:0::/64}`]);
    const ttl = await pair.connections[0].pttl(`${prefix}auth-failures:{2001:db8:0:0::/64}`);
    assert.ok(ttl > 0 && ttl <= 60_000, `ttl ${ttl} ms`);
  });
});
