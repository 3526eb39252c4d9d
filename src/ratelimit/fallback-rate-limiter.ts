import { createFallbackSwitch, type FallbackSwitchOptions, type LimiterBackend } from './fallback-switch.js';
import type { RateLimiter } from './rate-limiter.js';

export interface FallbackRateLimiter extends RateLimiter {
  /** Who decides now: the shared store, or this instance alone while it is unreachable. */
  backend(): LimiterBackend;
  /** Switches to the in-process limiter now (the store did not answer at start). */
  reportUnreachable(err: unknown): void;
}

export interface FallbackRateLimiterOptions extends Omit<FallbackSwitchOptions, 'limiter' | 'probe'> {
  readonly shared: RateLimiter;
  readonly local: RateLimiter;
}

/**
 * Per-key limits from the shared store while it answers, from this instance's own in-process
 * limiter while it does not: never a 500, never a hang
 * (docs/operations.md#scale-out-many-instances-on-postgresql-and-redis).
 */
export function createFallbackRateLimiter(options: FallbackRateLimiterOptions): FallbackRateLimiter {
  const { shared, local, observer } = options;
  const fallback = createFallbackSwitch({ ...options, limiter: 'rate', probe: () => shared.ping() });
  return {
    backend: () => fallback.backend(),
    reportUnreachable: (err) => fallback.reportUnreachable(err),
    async consume(keyId, now) {
      const { value, backend } = await fallback.run(
        () => shared.consume(keyId, now),
        () => local.consume(keyId, now),
      );
      observer.decision('rate', backend, value.allowed);
      return value;
    },
    // Not a decision: nothing to report. The store that decides is the one read.
    async peek(keyId, now) {
      const { value } = await fallback.run(
        () => shared.peek(keyId, now),
        () => local.peek(keyId, now),
      );
      return value;
    },
    // The instance keeps serving with the store down, so it stays ready (/readyz 200).
    async ping() {},
    async close() {
      fallback.close();
      await Promise.all([shared.close(), local.close()]);
    },
  };
}
