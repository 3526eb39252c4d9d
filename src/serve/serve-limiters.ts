import type { FastifyBaseLogger } from 'fastify';
import type { LimiterObserver } from '../ratelimit/limiter-observer.js';
import { createInProcessLimiters, type Limiters, type LimiterSet, limiterSetOf } from '../ratelimit/limiter-set.js';
import type { RateLimitPolicy } from '../ratelimit/rate-limiter.js';
import { loadUsedQuota } from '../ratelimit/used-quota.js';
import type { ServeConfig } from './serve-config.js';
import type { Storage } from '../storage/storage.js';

/**
 * This process's limiters, each decision reported to `observer` (/metrics) when it is counted:
 * - with Redis, the shared ones (each instance falling back to its own while Redis does not
 *   answer: docs/operations.md#scale-out-many-instances-on-postgresql-and-redis), which report
 *   their own decisions and fallbacks;
 * - in a cluster worker without Redis, its client of the primary's (`primary`, exact across workers);
 * - otherwise this process's own, resuming each key's day from the store (used-quota.ts).
 */
export async function openServeLimiters(
  config: ServeConfig,
  policy: RateLimitPolicy,
  log: FastifyBaseLogger,
  storage: Storage,
  observer: LimiterObserver,
  primary: Limiters | undefined,
): Promise<LimiterSet> {
  if (config.redisUrl !== undefined) {
    // Redis's client is loaded only when serving with Redis: the embedded default starts without it.
    const { createSharedLimiters } = await import('../ratelimit/shared-limiters.js');
    return createSharedLimiters({ url: config.redisUrl, prefix: config.redisPrefix, policy, log, observer });
  }
  if (primary !== undefined) return limiterSetOf(primary, observer);
  return createInProcessLimiters({ policy, observer, used: await loadUsedQuota(storage.quota, policy, Date.now()) });
}
