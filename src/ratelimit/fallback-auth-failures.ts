import { createFallbackSwitch, type FallbackSwitchOptions, type LimiterBackend } from './fallback-switch.js';
import type { AuthFailureLimiter } from './rate-limiter.js';

export interface FallbackAuthFailureLimiter extends AuthFailureLimiter {
  /** Who decides now: the shared store, or this instance alone while it is unreachable. */
  backend(): LimiterBackend;
  /** Switches to the in-process limiter now (the store did not answer at start). */
  reportUnreachable(err: unknown): void;
}

export interface FallbackAuthFailureLimiterOptions extends Omit<FallbackSwitchOptions, 'limiter'> {
  readonly shared: AuthFailureLimiter;
  readonly local: AuthFailureLimiter;
}

/**
 * The brute-force guard from the shared store while it answers, from this instance's own in-process
 * guard while it does not (docs/operations.md#scale-out-many-instances-on-postgresql-and-redis).
 * AuthFailureLimiter has no ping, so the caller says how to probe the store (the connection's
 * PING).
 */
export function createFallbackAuthFailureLimiter(
  options: FallbackAuthFailureLimiterOptions,
): FallbackAuthFailureLimiter {
  const { shared, local, observer } = options;
  const fallback = createFallbackSwitch({ ...options, limiter: 'auth_failures' });
  return {
    backend: () => fallback.backend(),
    reportUnreachable: (err) => fallback.reportUnreachable(err),
    async registerFailure(address, now) {
      const { value, backend } = await fallback.run(
        () => shared.registerFailure(address, now),
        () => local.registerFailure(address, now),
      );
      // Allowed: the failure was recorded and answered 401, not refused with 429.
      observer.decision('auth_failures', backend, value === 0);
      return value;
    },
    async close() {
      fallback.close();
      await Promise.all([shared.close(), local.close()]);
    },
  };
}
