import { Redis } from 'ioredis';
import { createFallbackAuthFailureLimiter } from './fallback-auth-failures.js';
import { createFallbackRateLimiter } from './fallback-rate-limiter.js';
import type { LimiterLog } from './limiter-log.js';
import { type LimiterObserver, NO_LIMITER_OBSERVER } from './limiter-observer.js';
import type { LimiterSet } from './limiter-set.js';
import { createMemoryRateLimiter } from './memory.js';
import { createMemoryAuthFailureLimiter } from './memory-auth-failures.js';
import { AUTH_FAILURE_POLICY, type AuthFailurePolicy, type RateLimitPolicy } from './rate-limiter.js';
import { createRedisAuthFailureLimiter } from './redis-auth-failures.js';
import { DEFAULT_REDIS_PREFIX } from './redis-keys.js';
import { createRedisRateLimiter } from './redis-rate-limiter.js';

export interface SharedLimitersOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://` (TLS). Never logged: it may hold a password. */
  readonly url: string;
  /** Every key under this prefix (`--redis-prefix`, default `meal-export:`). */
  readonly prefix?: string;
  readonly policy: RateLimitPolicy;
  readonly authFailurePolicy?: AuthFailurePolicy;
  readonly log: LimiterLog;
  readonly observer?: LimiterObserver;
  /** How long a request waits for Redis before its instance decides alone (default 500 ms). */
  readonly timeoutMs?: number;
}

// How long start-up waits for the first connection before serving from the fallback.
const CONNECT_TIMEOUT_MS = 1000;

/**
 * The scale-out limiters (docs/operations.md#scale-out-many-instances-on-postgresql-and-redis):
 * both on one Redis connection, each falling back to its own in-process limiter while Redis does
 * not answer. Resolves within about a second even when Redis is down: the instance then starts in
 * fallback.
 */
export async function createSharedLimiters(options: SharedLimitersOptions): Promise<LimiterSet> {
  const timeoutMs = options.timeoutMs ?? 500;
  const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
  const observer = options.observer ?? NO_LIMITER_OBSERVER;
  const authFailurePolicy = options.authFailurePolicy ?? AUTH_FAILURE_POLICY;
  // Nothing may hang: no queue while disconnected and no retry of a
  // command, so a call fails at once or within `commandTimeout`; the connection itself is
  // retried in the background, at most a second apart. A command whose answer was given up
  // on is never replayed after a reconnection: its request was decided in-process already.
  const redis = new Redis(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: timeoutMs,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
  });
  // The fallback switch logs the outage once; ioredis would print every failed reconnection.
  redis.on('error', () => {});
  const common = { log: options.log, observer, timeoutMs };
  const limiter = createFallbackRateLimiter({
    ...common,
    shared: createRedisRateLimiter({ redis, policy: options.policy, prefix }),
    local: createMemoryRateLimiter(options.policy),
  });
  const authFailures = createFallbackAuthFailureLimiter({
    ...common,
    probe: () => redis.ping(),
    shared: createRedisAuthFailureLimiter({ redis, policy: authFailurePolicy, prefix }),
    local: createMemoryAuthFailureLimiter(authFailurePolicy),
  });
  const ready = await waitUntilReady(redis, CONNECT_TIMEOUT_MS);
  if (ready !== true) {
    limiter.reportUnreachable(ready);
    authFailures.reportUnreachable(ready);
  }
  return {
    limiter,
    authFailures,
    mode: () => (limiter.backend() === 'redis' && authFailures.backend() === 'redis' ? 'shared' : 'fallback'),
    async close() {
      await Promise.all([limiter.close(), authFailures.close()]);
      await closeConnection(redis);
    },
  };
}

/** True once the connection is ready, else the reason it is not within `ms`. */
function waitUntilReady(redis: Redis, ms: number): Promise<true | Error> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    let lastError = new Error(`Redis not ready within ${ms} ms`);
    const onError = (err: Error): void => {
      lastError = err;
    };
    const onReady = (): void => finish(true);
    const timer = setTimeout(() => finish(lastError), ms);
    function finish(result: true | Error): void {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
      resolve(result);
    }
    redis.on('ready', onReady);
    redis.on('error', onError);
  });
}

/** QUIT when Redis answers (replies in flight are read first), else drop the socket. */
async function closeConnection(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    try {
      await redis.quit();
      return;
    } catch {
      // Fall through: the connection went away meanwhile.
    }
  }
  redis.disconnect();
}
