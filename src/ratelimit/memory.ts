import { nextUtcMidnight } from '../domain/instant.js';
import type { RateDecision, RateLimiter, RateLimitPolicy } from './rate-limiter.js';

interface KeyState {
  lastAcceptedAt: number;
  /** Epoch ms of the reset that ends the day `usedToday` counts. */
  dayResetAt: number;
  usedToday: number;
}

/**
 * The in-process limiter of the embedded default. JavaScript runs one callback at a time, so
 * the check and the update below cannot interleave: of N simultaneous requests, one wins.
 */
export function createMemoryRateLimiter(policy: RateLimitPolicy): RateLimiter {
  const states = new Map<string, KeyState>();

  // Yesterday's states are dropped at most once a minute, so memory follows the active keys.
  let nextSweepAt = 0;
  function sweep(now: number): void {
    if (now < nextSweepAt) return;
    nextSweepAt = now + 60_000;
    for (const [keyId, state] of states) {
      if (state.dayResetAt <= now && now - state.lastAcceptedAt >= policy.minIntervalMs) states.delete(keyId);
    }
  }

  return {
    async consume(keyId, now): Promise<RateDecision> {
      return decide(policy, states, keyId, now, sweep);
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
  sweep: (now: number) => void,
): RateDecision {
  sweep(now);
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
  const intervalWaitMs = state.lastAcceptedAt + policy.minIntervalMs - now;
  // The next accepted request must wait for both the daily reset and the interval.
  if (remaining <= 0)
    return { allowed: false, remaining: 0, resetAt, retryAfterMs: Math.max(resetAt - now, intervalWaitMs) };
  if (intervalWaitMs > 0) return { allowed: false, remaining, resetAt, retryAfterMs: intervalWaitMs };
  state.lastAcceptedAt = now;
  state.usedToday += 1;
  return { allowed: true, remaining: remaining - 1, resetAt, retryAfterMs: 0 };
}
