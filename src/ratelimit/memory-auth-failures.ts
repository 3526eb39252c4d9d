import { type DurationClock, durationNow } from '../domain/duration-clock.js';
import { clientGroupOf } from './client-group.js';
import { AUTH_FAILURE_POLICY, type AuthFailureLimiter, type AuthFailurePolicy } from './rate-limiter.js';

export interface MemoryAuthFailureLimiterOptions {
  /**
   * The most client addresses (IPv6: /64s) kept at once (default 100,000, a few MB). Past it the
   * one whose last failure is the oldest is forgotten, so that a flood of addresses, each
   * failing once, cannot grow the process without bound.
   */
  readonly maxAddresses?: number;
  /** Tests only: 'caller' measures the window on the `now` given (default 'monotonic'). */
  readonly clock?: DurationClock;
}

export interface MemoryAuthFailureLimiter extends AuthFailureLimiter {
  /** How many client addresses are remembered now (at most maxAddresses). */
  readonly size: number;
}

/**
 * The in-process brute-force guard: per client address (clientGroupOf), the times of its recent
 * failed authentications (at most `maxFailures` kept), on the monotonic clock: the window is a
 * duration (domain/duration-clock.ts).
 */
export function createMemoryAuthFailureLimiter(
  policy: AuthFailurePolicy = AUTH_FAILURE_POLICY,
  options: MemoryAuthFailureLimiterOptions = {},
): MemoryAuthFailureLimiter {
  const maxAddresses = options.maxAddresses ?? 100_000;
  const clock = options.clock ?? 'monotonic';
  // Map order is the order of last failure: an address is re-inserted each time it fails.
  const failures = new Map<string, number[]>();
  let nextSweepAt = 0;

  function sweep(now: number): void {
    if (now < nextSweepAt) return;
    nextSweepAt = now + policy.windowMs;
    for (const [address, times] of failures) {
      if ((times[times.length - 1] ?? 0) <= now - policy.windowMs) failures.delete(address);
    }
  }

  function remember(group: string, times: number[]): void {
    failures.delete(group);
    if (failures.size >= maxAddresses) {
      const oldest = failures.keys().next();
      if (oldest.done !== true) failures.delete(oldest.value);
    }
    failures.set(group, times);
  }

  return {
    get size() {
      return failures.size;
    },
    async registerFailure(address, wallNow) {
      const now = durationNow(clock, wallNow);
      sweep(now);
      const group = clientGroupOf(address);
      const recent = (failures.get(group) ?? []).filter((t) => t > now - policy.windowMs);
      const oldest = recent[0];
      if (recent.length >= policy.maxFailures && oldest !== undefined) {
        failures.set(group, recent);
        return oldest + policy.windowMs - now;
      }
      recent.push(now);
      remember(group, recent);
      return 0;
    },
    async close() {
      failures.clear();
    },
  };
}
