import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AppError } from '../errors.js';

/**
 * A Lua script run in one round trip: EVALSHA, and EVAL only when the server does not know
 * the script yet (first use, or after a restart emptied its script cache). Redis runs a
 * script alone, so its reads and writes cannot interleave with another client's: this is what
 * makes the shared limits exact across instances (docs/api.md#limits).
 */
export interface RedisScript {
  run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
}

export function defineRedisScript(lua: string): RedisScript {
  const sha = createHash('sha1').update(lua).digest('hex');
  return {
    async run(redis, keys, args) {
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw redisUnavailable(err);
        return redis.eval(lua, keys.length, ...keys, ...args).catch((evalErr: unknown) => {
          throw redisUnavailable(evalErr);
        });
      }
    },
  };
}

/** A failed Redis call, as the 503 `unavailable` of docs/errors.md, the driver's error as cause. */
export function redisUnavailable(err: unknown): AppError {
  const reason = err instanceof Error ? err.message : String(err);
  return new AppError('unavailable', `The shared limiter store (Redis) does not answer: ${reason}`, { cause: err });
}

/**
 * The script's reply as integers: the limiters' scripts answer arrays of integers only, so
 * anything else is a bug (a script of another version under the same sha cannot happen).
 */
export function integerReply(reply: unknown, length: number): number[] {
  if (!isIntegerArray(reply) || reply.length !== length) {
    throw new Error(`unexpected limiter script reply: ${JSON.stringify(reply)}`);
  }
  return reply;
}

function isIntegerArray(reply: unknown): reply is number[] {
  return Array.isArray(reply) && reply.every((n) => Number.isSafeInteger(n));
}

/**
 * `now` inside a script: Redis's own clock (`TIME`), so every instance decides on one clock
 * whatever its host's says; or, for tests only, the caller's `now` passed as the last argument.
 * Since Redis 5 scripts replicate their effects, not the script, so reading TIME before a
 * write is allowed.
 */
export const LUA_NOW = `
local now
if ARGV[#ARGV] == '' then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
else
  now = tonumber(ARGV[#ARGV])
end
`;

/** Which clock the scripts read: Redis `TIME` (always, outside tests) or the caller's `now`. */
export type RedisLimiterClock = 'redis' | 'caller';

export function clockArgument(clock: RedisLimiterClock, now: number): string {
  return clock === 'caller' ? String(now) : '';
}
