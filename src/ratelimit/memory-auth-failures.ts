import { AUTH_FAILURE_POLICY, type AuthFailureLimiter, type AuthFailurePolicy } from './rate-limiter.js';

/**
 * The in-process brute-force guard: per client address, the times of its recent failed
 * authentications (at most `maxFailures` kept).
 */
export function createMemoryAuthFailureLimiter(policy: AuthFailurePolicy = AUTH_FAILURE_POLICY): AuthFailureLimiter {
  const failures = new Map<string, number[]>();
  let nextSweepAt = 0;

  function sweep(now: number): void {
    if (now < nextSweepAt) return;
    nextSweepAt = now + policy.windowMs;
    for (const [address, times] of failures) {
      if ((times[times.length - 1] ?? 0) <= now - policy.windowMs) failures.delete(address);
    }
  }

  return {
    async registerFailure(address, now) {
      sweep(now);
      const recent = (failures.get(address) ?? []).filter((t) => t > now - policy.windowMs);
      const oldest = recent[0];
      if (recent.length >= policy.maxFailures && oldest !== undefined) {
        failures.set(address, recent);
        return oldest + policy.windowMs - now;
      }
      recent.push(now);
      failures.set(address, recent);
      return 0;
    },
    async close() {
      failures.clear();
    },
  };
}
