import type { Redis } from 'ioredis';
import type { RateDecision, RateLimiter, RateLimitPolicy, RateStanding } from './rate-limiter.js';
import { DEFAULT_REDIS_PREFIX, redisLimiterKey } from './redis-keys.js';
import {
  clockArgument,
  defineRedisScript,
  integerReply,
  LUA_NOW,
  redisUnavailable,
  type RedisLimiterClock,
} from './redis-script.js';

/**
 * One key's state is a hash { last: epoch ms of the last accepted request, day: epoch ms of
 * the reset that ends the day `used` counts, used }. The rules are memory.ts's, line for line:
 * the interval and the UTC-day quota are checked and consumed in one script, a refused request
 * writes nothing, and the wait covers both the daily reset and the interval
 * (docs/api.md#limits). The key expires once neither its day nor its interval matters any more.
 * ARGV: minIntervalMs, dailyLimit, now ('' = Redis TIME).
 *
 * LUA_STANDING is where the key stands (memory.ts's standingOf): shared by the consume script
 * and the read-only peek, so that a peek says exactly what a consume would decide.
 */
const LUA_STANDING = `${LUA_NOW}
local interval = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local DAY = 86400000
local resetAt = (math.floor(now / DAY) + 1) * DAY
local state = redis.call('HMGET', KEYS[1], 'last', 'day', 'used')
local last = tonumber(state[1])
local day = tonumber(state[2])
local used = tonumber(state[3]) or 0
if day == nil or day <= now then
  day = resetAt
  used = 0
end
local remaining = limit - used
local wait = 0
if last ~= nil then wait = math.max(0, last + interval - now) end
if remaining <= 0 then
  remaining = 0
  wait = math.max(resetAt - now, wait)
end
`;

const CONSUME = defineRedisScript(`${LUA_STANDING}
if wait > 0 then return {0, remaining, resetAt, wait} end
redis.call('HSET', KEYS[1], 'last', string.format('%.0f', now), 'day', string.format('%.0f', day), 'used', used + 1)
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.max(day, now + interval) - now))
return {1, remaining - 1, resetAt, 0}
`);

/** Reads only (HMGET): a peek writes nothing, not even the key's expiry. */
const PEEK = defineRedisScript(`${LUA_STANDING}
return {remaining, resetAt, wait}
`);

export interface RedisRateLimiterOptions {
  /** A connection the caller owns: close() leaves it open. */
  readonly redis: Redis;
  readonly policy: RateLimitPolicy;
  readonly prefix?: string;
  /**
   * Tests only: 'caller' decides at the `now` each call passes, so the shared limiter suite can
   * run its explicit instants (midnight, days later) on Redis. The service always uses Redis
   * `TIME` (the default), one clock for every instance.
   */
  readonly clock?: RedisLimiterClock;
}

/** The per-key limits shared by every instance through Redis (docs/api.md#limits). */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const { redis, policy } = options;
  const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
  const clock = options.clock ?? 'redis';
  return {
    async consume(keyId, now): Promise<RateDecision> {
      const reply = await CONSUME.run(
        redis,
        [redisLimiterKey(prefix, 'rate', keyId)],
        [policy.minIntervalMs, policy.dailyLimit, clockArgument(clock, now)],
      );
      // integerReply checked the length: the defaults never apply.
      const [allowed, remaining = 0, resetAt = 0, retryAfterMs = 0] = integerReply(reply, 4);
      return { allowed: allowed === 1, remaining, resetAt, retryAfterMs };
    },
    async peek(keyId, now): Promise<RateStanding> {
      const reply = await PEEK.run(
        redis,
        [redisLimiterKey(prefix, 'rate', keyId)],
        [policy.minIntervalMs, policy.dailyLimit, clockArgument(clock, now)],
      );
      const [remaining = 0, resetAt = 0, waitMs = 0] = integerReply(reply, 3);
      return { remaining, resetAt, waitMs };
    },
    async ping() {
      await redis.ping().catch((err: unknown) => {
        throw redisUnavailable(err);
      });
    },
    async close() {},
  };
}
