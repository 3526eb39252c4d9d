import type { LimiterObserver } from './limiter-observer.js';
import type { AuthFailureLimiter, RateLimiter } from './rate-limiter.js';

/**
 * Reports each decision of a limiter that does not report its own (the in-process ones, and the
 * cluster workers' client of the primary's) to /metrics, as made by `backend`. The Redis limiter
 * with its fallback reports itself, with the backend of each decision.
 */
export function observeRateLimiter(
  limiter: RateLimiter,
  observer: LimiterObserver,
  backend: 'redis' | 'memory' = 'memory',
): RateLimiter {
  return {
    async consume(keyId, now) {
      const decision = await limiter.consume(keyId, now);
      observer.decision('rate', backend, decision.allowed);
      return decision;
    },
    // Not a decision: /metrics counts decisions only.
    peek: (keyId, now) => limiter.peek(keyId, now),
    ping: () => limiter.ping(),
    close: () => limiter.close(),
  };
}

export function observeAuthFailureLimiter(
  limiter: AuthFailureLimiter,
  observer: LimiterObserver,
  backend: 'redis' | 'memory' = 'memory',
): AuthFailureLimiter {
  return {
    async registerFailure(address, now) {
      const waitMs = await limiter.registerFailure(address, now);
      observer.decision('auth_failures', backend, waitMs === 0);
      return waitMs;
    },
    close: () => limiter.close(),
  };
}
