import type { Redis } from 'ioredis';
import { clientGroupOf } from './client-group.js';
import { AUTH_FAILURE_POLICY, type AuthFailureLimiter, type AuthFailurePolicy } from './rate-limiter.js';
import { DEFAULT_REDIS_PREFIX, redisLimiterKey } from './redis-keys.js';
import { clockArgument, defineRedisScript, integerReply, LUA_NOW, type RedisLimiterClock } from './redis-script.js';

/**
 * One address's state is a list of the times of its recent failures (at most `maxFailures`),
 * as memory-auth-failures.ts keeps them: failures older than the window are dropped; with
 * `maxFailures` left the attempt is refused (not recorded) until the oldest leaves the window,
 * else it is recorded. The list expires one window after its newest
 * entry. ARGV: maxFailures, windowMs, now ('' = Redis TIME).
 */
const REGISTER_FAILURE = defineRedisScript(`${LUA_NOW}
local maxFailures = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local times = redis.call('LRANGE', KEYS[1], 0, -1)
local recent = {}
local oldest = nil
for _, text in ipairs(times) do
  local t = tonumber(text)
  if t > now - window then
    recent[#recent + 1] = text
    if oldest == nil or t < oldest then oldest = t end
  end
end
if #recent >= maxFailures and oldest ~= nil then return {oldest + window - now} end
if #recent < #times then
  redis.call('DEL', KEYS[1])
  if #recent > 0 then redis.call('RPUSH', KEYS[1], unpack(recent)) end
end
redis.call('RPUSH', KEYS[1], string.format('%.0f', now))
redis.call('PEXPIRE', KEYS[1], window)
return {0}
`);

export interface RedisAuthFailureLimiterOptions {
  /** A connection the caller owns: close() leaves it open. */
  readonly redis: Redis;
  readonly policy?: AuthFailurePolicy;
  readonly prefix?: string;
  /** Tests only, as in redis-rate-limiter.ts: the service always uses Redis `TIME`. */
  readonly clock?: RedisLimiterClock;
}

/** The brute-force guard shared by every instance through Redis (docs/api.md#limits), per clientGroupOf. */
export function createRedisAuthFailureLimiter(options: RedisAuthFailureLimiterOptions): AuthFailureLimiter {
  const { redis } = options;
  const policy = options.policy ?? AUTH_FAILURE_POLICY;
  const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
  const clock = options.clock ?? 'redis';
  return {
    async registerFailure(address, now) {
      const reply = await REGISTER_FAILURE.run(
        redis,
        [redisLimiterKey(prefix, 'auth-failures', clientGroupOf(address))],
        [policy.maxFailures, policy.windowMs, clockArgument(clock, now)],
      );
      const [waitMs = 0] = integerReply(reply, 1);
      return waitMs;
    },
    async close() {},
  };
}
