import { type DurationClock, durationNow } from '../domain/duration-clock.js';
import { nextUtcMidnight } from '../domain/instant.js';
import type { RateDecision, RateLimiter, RateLimitPolicy } from './rate-limiter.js';

interface KeyState {
  /** On the duration clock: the interval is a duration. */
  lastAcceptedAt: number;
  /** Epoch ms of the reset that ends the day `usedToday` counts. */
  dayResetAt: number;
  usedToday: number;
}

/**
 * The in-process limiter of the embedded default. JavaScript runs one callback at a time, so
 * the check and the update below cannot interleave: of N simultaneous requests, one wins.
 * The day is a calendar fact, read from the caller's wall-clock `now` (UTC midnight); the
 * interval a duration, read from the monotonic clock (domain/duration-clock.ts).
 */
export function createMemoryRateLimiter(
  policy: RateLimitPolicy,
  options: { readonly clock?: DurationClock } = {},
): RateLimiter {
  const states = new Map<string, KeyState>();
  const clock = options.clock ?? 'monotonic';

  // Yesterday's states are dropped at most once a minute, so memory follows the active keys.
  let nextSweepAt = 0;
  function sweep(now: number, elapsed: number): void {
    if (elapsed < nextSweepAt) return;
    nextSweepAt = elapsed + 60_000;
    for (const [keyId, state] of states) {
      if (state.dayResetAt <= now && elapsed - state.lastAcceptedAt >= policy.minIntervalMs) states.delete(keyId);
    }
  }

  return {
    async consume(keyId, now): Promise<RateDecision> {
      return decide(policy, states, keyId, now, durationNow(clock, now), sweep);
    },
    async ping() {},
    async close() {
      states.clear();
    },
  };
}

function decide(
  policy: RateLimitPolicy,
  states: Map<string, KeyState>,
  keyId: string,
  now: number,
  /** `now` on the duration clock. */
  elapsed: number,
  sweep: (now: number, elapsed: number) => void,
): RateDecision {
  sweep(now, elapsed);
  const resetAt = nextUtcMidnight(now);
  let state = states.get(keyId);
  if (state === undefined) {
    state = { lastAcceptedAt: Number.NEGATIVE_INFINITY, dayResetAt: resetAt, usedToday: 0 };
    states.set(keyId, state);
  } else if (state.dayResetAt <= now) {
    state.dayResetAt = resetAt;
    state.usedToday = 0;
  }
  const remaining = policy.dailyLimit - state.usedToday;
  const intervalWaitMs = state.lastAcceptedAt + policy.minIntervalMs - elapsed;
  // The next accepted request must wait for both the daily reset and the interval.
  if (remaining <= 0)
    return { allowed: false, remaining: 0, resetAt, retryAfterMs: Math.max(resetAt - now, intervalWaitMs) };
  if (intervalWaitMs > 0) return { allowed: false, remaining, resetAt, retryAfterMs: intervalWaitMs };
  state.lastAcceptedAt = elapsed;
  state.usedToday += 1;
  return { allowed: true, remaining: remaining - 1, resetAt, retryAfterMs: 0 };
}
