import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { nextUtcMidnight } from '../../src/domain/instant.js';
import { AppError } from '../../src/errors.js';
import { createRedisRateLimiter } from '../../src/ratelimit/redis-rate-limiter.js';
import { freePort } from '../support/free-port.js';
import { keysUnder, redisSkipReason, useTestRedisPair } from '../support/redis.js';
import { openOnTestRedis } from './opened-instances.js';
import { runRateLimiterSuite } from './rate-limiter.suite.js';

// On the machine's Redis (or MEAL_EXPORT_TEST_REDIS_URL), under a fresh random prefix per case,
// deleted afterwards. Without Redis these tests are skipped with the reason.
const unavailable = await redisSkipReason();

// Every case runs. The cases pass explicit instants (midnight, days later) that Redis's TIME
// cannot reach, so the limiters are opened with the test-only caller clock: the same script
// runs, only `now` comes from the argument. The Redis clock is tested below on real time.
runRateLimiterSuite({
  name: 'Redis',
  unavailable,
  open: (policy) =>
    openOnTestRedis('rate', (redis, prefix) => createRedisRateLimiter({ redis, policy, prefix, clock: 'caller' })),
});

describe('the Redis rate limiter', { skip: unavailable ?? false }, () => {
  // Two connections: two service instances sharing one Redis.
  const pair = useTestRedisPair('rate');

  test('decides on Redis TIME, whatever instant the caller passes', async () => {
    const limiter = createRedisRateLimiter({
      redis: pair.connections[0],
      policy: { minIntervalMs: 60_000, dailyLimit: 5 },
      prefix: pair.freshPrefix(),
    });
    const before = Date.now();
    const first = await limiter.consume('k1', Date.UTC(2000, 0, 1));
    const second = await limiter.consume('k1', Date.UTC(2000, 0, 2));
    const afterwards = Date.now();
    assert.equal(first.allowed, true);
    // Redis runs on this machine: its clock is the host's (up to a midnight between the reads).
    assert.ok([nextUtcMidnight(before), nextUtcMidnight(afterwards)].includes(first.resetAt), `${first.resetAt}`);
    assert.equal(second.allowed, false, 'a day later by the caller clock is 0 s later by Redis TIME');
    assert.ok(second.retryAfterMs > 0 && second.retryAfterMs <= 60_000, `${second.retryAfterMs}`);
  });

  test('on real elapsed time, refuses within the interval and accepts once retryAfterMs has passed', async () => {
    const limiter = createRedisRateLimiter({
      redis: pair.connections[0],
      policy: { minIntervalMs: 1000, dailyLimit: 100 },
      prefix: pair.freshPrefix(),
    });
    assert.equal((await limiter.consume('k1', Date.now())).allowed, true);
    const refused = await limiter.consume('k1', Date.now());
    assert.equal(refused.allowed, false);
    assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 1000, `${refused.retryAfterMs}`);
    await new Promise((resolve) => setTimeout(resolve, refused.retryAfterMs + 20));
    const accepted = await limiter.consume('k1', Date.now());
    assert.equal(accepted.allowed, true);
    assert.equal(accepted.remaining, 98);
  });

  test('keeps one hash-tagged key per API key under the prefix, expiring once its day and interval are over', async () => {
    const prefix = pair.freshPrefix();
    const limiter = createRedisRateLimiter({
      redis: pair.connections[0],
      policy: { minIntervalMs: 3000, dailyLimit: 5 },
      prefix,
    });
    const decision = await limiter.consume('key_abc', Date.now());
    const refused = await limiter.consume('key_abc', Date.now());
    assert.deepEqual(await keysUnder(pair.connections[0], prefix), [`${prefix}rate:{key_abc}`]);
    const ttl = await pair.connections[0].pttl(`${prefix}rate:{key_abc}`);
    const untilReset = decision.resetAt - Date.now();
    assert.ok(ttl > 0 && ttl <= Math.max(untilReset, 3000) + 1000, `ttl ${ttl} ms, reset in ${untilReset} ms`);
    assert.equal(refused.allowed, false);
  });

  test('uses the prefix meal-export: when none is given', async () => {
    const keyId = `test-${process.pid}-${Date.now()}`;
    const limiter = createRedisRateLimiter({ redis: pair.connections[0], policy: { minIntervalMs: 0, dailyLimit: 5 } });
    try {
      await limiter.consume(keyId, Date.now());
      assert.equal(await pair.connections[0].exists(`meal-export:rate:{${keyId}}`), 1);
    } finally {
      await pair.connections[0].del(`meal-export:rate:{${keyId}}`);
    }
  });

  test('limiters under different prefixes do not share limits', async () => {
    const policy = { minIntervalMs: 60_000, dailyLimit: 5 };
    const a = createRedisRateLimiter({ redis: pair.connections[0], policy, prefix: pair.freshPrefix() });
    const b = createRedisRateLimiter({ redis: pair.connections[1], policy, prefix: pair.freshPrefix() });
    assert.equal((await a.consume('k1', Date.now())).allowed, true);
    assert.equal((await b.consume('k1', Date.now())).allowed, true);
  });

  test('a call Redis cannot answer fails as unavailable (503), with the driver error as its cause', async () => {
    const nobody = new Redis(`redis://127.0.0.1:${await freePort()}`, {
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    nobody.on('error', () => {});
    try {
      const limiter = createRedisRateLimiter({ redis: nobody, policy: { minIntervalMs: 0, dailyLimit: 5 } });
      for (const call of [() => limiter.consume('k1', Date.now()), () => limiter.ping()]) {
        await assert.rejects(call(), (err: unknown) => {
          assert.ok(err instanceof AppError);
          assert.equal(err.code, 'unavailable');
          assert.ok(err.cause instanceof Error);
          return true;
        });
      }
    } finally {
      nobody.disconnect();
    }
  });
});
