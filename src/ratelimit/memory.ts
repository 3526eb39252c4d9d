import { type DurationClock, durationNow } from '../domain/duration-clock.js';
import { nextUtcMidnight } from '../domain/instant.js';
import type { KeyHandover } from './key-handover.js';
import type { RateDecision, RateLimiter, RateLimitPolicy, RateStanding } from './rate-limiter.js';
import type { KeyUsedQuota, UsedQuota } from './used-quota.js';

interface KeyState {
  /** On the duration clock: the interval is a duration. */
  lastAcceptedAt: number;
  /** Epoch ms of the reset that ends the day `usedToday` counts. */
  dayResetAt: number;
  usedToday: number;
}

export interface MemoryRateLimiterOptions {
  /** Tests only: 'caller' measures the interval on the `now` given (default 'monotonic'). */
  readonly clock?: DurationClock;
  /** Where each key stands at start (a restart, ratelimit/used-quota.ts); none: a fresh day for every key. */
  readonly used?: UsedQuota;
}

/** An in-process limiter whose keys' states can move to another process and back (key-handover.ts). */
export interface MovableRateLimiter extends RateLimiter {
  /** The key's state at `now`, which this limiter forgets: the key is decided elsewhere until takeOver. */
  handOver(keyId: string, now: number): KeyHandover;
  /** Decides the key again from the state another process handed over (received at `now`). */
  takeOver(keyId: string, handover: KeyHandover, now: number): void;
}

/**
 * The in-process limiter of the embedded default. JavaScript runs one callback at a time, so
 * the check and the update below cannot interleave: of N simultaneous requests, one wins.
 * The day is a calendar fact, read from the caller's wall-clock `now` (UTC midnight); the
 * interval a duration, read from the monotonic clock (domain/duration-clock.ts).
 */
export function createMemoryRateLimiter(
  policy: RateLimitPolicy,
  options: MemoryRateLimiterOptions = {},
): MovableRateLimiter {
  const states = new Map<string, KeyState>();
  const clock = options.clock ?? 'monotonic';
  if (options.used !== undefined) {
    for (const key of options.used.keys) states.set(key.keyId, resumedState(key, options.used.at, clock));
  }

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
    async peek(keyId, now): Promise<RateStanding> {
      return standingOf(policy, states.get(keyId), now, durationNow(clock, now));
    },
    async ping() {},
    async close() {
      states.clear();
    },
    handOver(keyId, now) {
      const state = states.get(keyId);
      states.delete(keyId);
      if (state === undefined) return { sinceAcceptedMs: null, usedToday: 0, dayResetAt: nextUtcMidnight(now) };
      const since = durationNow(clock, now) - state.lastAcceptedAt;
      return {
        sinceAcceptedMs: since < policy.minIntervalMs ? Math.max(0, since) : null,
        usedToday: state.usedToday,
        dayResetAt: state.dayResetAt,
      };
    },
    takeOver(keyId, handover, now) {
      const since = handover.sinceAcceptedMs ?? Number.POSITIVE_INFINITY;
      const { usedToday, dayResetAt } = handover;
      states.set(keyId, { lastAcceptedAt: durationNow(clock, now) - since, dayResetAt, usedToday });
    },
  };
}

/**
 * A key's state as the store left it at `at` (wall clock). The last acceptance, an instant, is
 * placed on the duration clock as "that long before `at`"; one the wall clock puts after `at`
 * (a clock stepped back since) counts as `at`: at most one whole interval is waited.
 */
function resumedState(key: KeyUsedQuota, at: number, clock: DurationClock): KeyState {
  const ago = key.lastAcceptedAt === undefined ? Number.POSITIVE_INFINITY : Math.max(0, at - key.lastAcceptedAt);
  return { lastAcceptedAt: durationNow(clock, at) - ago, dayResetAt: nextUtcMidnight(at), usedToday: key.usedToday };
}

/**
 * Where a key stands at `now` (`elapsed` on the duration clock), without changing it: a state
 * of an earlier day counts nothing today, while its interval may still run past midnight.
 */
function standingOf(policy: RateLimitPolicy, state: KeyState | undefined, now: number, elapsed: number): RateStanding {
  const resetAt = nextUtcMidnight(now);
  const used = state === undefined || state.dayResetAt <= now ? 0 : state.usedToday;
  const intervalWaitMs = (state?.lastAcceptedAt ?? Number.NEGATIVE_INFINITY) + policy.minIntervalMs - elapsed;
  const remaining = policy.dailyLimit - used;
  // The next accepted request must wait for both the daily reset and the interval.
  if (remaining <= 0) return { remaining: 0, resetAt, waitMs: Math.max(resetAt - now, intervalWaitMs) };
  return { remaining, resetAt, waitMs: Math.max(0, intervalWaitMs) };
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
  const { remaining, resetAt, waitMs } = standingOf(policy, states.get(keyId), now, elapsed);
  if (waitMs > 0) return { allowed: false, remaining, resetAt, retryAfterMs: waitMs };
  let state = states.get(keyId);
  if (state === undefined) {
    state = { lastAcceptedAt: elapsed, dayResetAt: resetAt, usedToday: 0 };
    states.set(keyId, state);
  } else if (state.dayResetAt <= now) {
    state.dayResetAt = resetAt;
    state.usedToday = 0;
  }
  state.lastAcceptedAt = elapsed;
  state.usedToday += 1;
  return { allowed: true, remaining: remaining - 1, resetAt, retryAfterMs: 0 };
}
