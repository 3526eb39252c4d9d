import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createFallbackAuthFailureLimiter } from '../../src/ratelimit/fallback-auth-failures.js';
import { createFallbackRateLimiter } from '../../src/ratelimit/fallback-rate-limiter.js';
import { createMemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { createMemoryAuthFailureLimiter } from '../../src/ratelimit/memory-auth-failures.js';
import { createRedisAuthFailureLimiter } from '../../src/ratelimit/redis-auth-failures.js';
import { createRedisRateLimiter } from '../../src/ratelimit/redis-rate-limiter.js';
import { redisSkipReason } from '../support/redis.js';
import { runAuthFailureLimiterSuite } from './auth-failure-limiter.suite.js';
import { recordLimiterEvents } from './limiter-recorder.js';
import { openOnTestRedis } from './opened-instances.js';
import { runRateLimiterSuite } from './rate-limiter.suite.js';

// The fallback wrappers while Redis answers: every decision must be Redis's, exactly. Their
// behaviour with Redis down is tested through createSharedLimiters (shared-limiters.test.ts).
const unavailable = await redisSkipReason();
const recorder = recordLimiterEvents();

// Every case of both suites runs. Their cases pass explicit instants: the Redis limiters inside
// use the caller clock, as in redis-rate-limiter.test.ts.
runRateLimiterSuite({
  name: 'Fallback over Redis',
  unavailable,
  open: (policy) =>
    openOnTestRedis('fallback', (redis, prefix) =>
      createFallbackRateLimiter({
        shared: createRedisRateLimiter({ redis, policy, prefix, clock: 'caller' }),
        local: createMemoryRateLimiter(policy, { clock: 'caller' }),
        log: recorder.log,
        observer: recorder.observer,
      }),
    ),
});

runAuthFailureLimiterSuite({
  name: 'Fallback over Redis',
  unavailable,
  open: (policy) =>
    openOnTestRedis('fallback', (redis, prefix) =>
      createFallbackAuthFailureLimiter({
        shared: createRedisAuthFailureLimiter({ redis, prefix, clock: 'caller', ...(policy && { policy }) }),
        local: createMemoryAuthFailureLimiter(policy, { clock: 'caller' }),
        probe: () => redis.ping(),
        log: recorder.log,
        observer: recorder.observer,
      }),
    ),
});

// After both suites: a file's top-level tests run in order.
describe('the fallback limiters while Redis answers', { skip: unavailable ?? false }, () => {
  test('every decision of the suites came from Redis and was reported, and nothing fell back', () => {
    assert.ok(recorder.count('decision rate redis ') > 100, recorder.events.slice(0, 5).join('\n'));
    assert.ok(recorder.count('decision auth_failures redis ') > 100);
    assert.equal(recorder.count('decision rate memory'), 0);
    assert.equal(recorder.count('decision auth_failures memory'), 0);
    assert.deepEqual(
      recorder.events.filter((event) => !event.startsWith('decision ')),
      [],
    );
  });
});
