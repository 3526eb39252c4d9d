import type { LimiterObserver } from './limiter-observer.js';
import { createMemoryRateLimiter } from './memory.js';
import { createMemoryAuthFailureLimiter } from './memory-auth-failures.js';
import { observeAuthFailureLimiter, observeRateLimiter } from './observed-limiters.js';
import type { AuthFailureLimiter, AuthFailurePolicy, RateLimiter, RateLimitPolicy } from './rate-limiter.js';
import type { UsedQuota } from './used-quota.js';

/**
 * - `in-process`: no shared store configured; each instance limits alone.
 * - `shared`: Redis decides for every instance.
 * - `fallback`: Redis is configured but does not answer: this instance decides alone until it
 *   does; still ready, but worth telling in /readyz.
 */
export type LimiterMode = 'in-process' | 'shared' | 'fallback';

/** The two limiters a server needs, as one piece to wire, report and close. */
export interface LimiterSet {
  readonly limiter: RateLimiter;
  readonly authFailures: AuthFailureLimiter;
  mode(): LimiterMode;
  close(): Promise<void>;
}

/** A rate limiter and a brute-force guard: what the HTTP layer consumes. */
export interface Limiters {
  readonly limiter: RateLimiter;
  readonly authFailures: AuthFailureLimiter;
}

/**
 * A pair that does not report its own decisions (in-process, or a cluster worker's client of
 * the primary's), as a LimiterSet whose every decision goes to the observer as `memory`.
 */
export function limiterSetOf(limiters: Limiters, observer: LimiterObserver): LimiterSet {
  return {
    limiter: observeRateLimiter(limiters.limiter, observer, 'memory'),
    authFailures: observeAuthFailureLimiter(limiters.authFailures, observer, 'memory'),
    mode: () => 'in-process',
    async close() {
      await Promise.all([limiters.limiter.close(), limiters.authFailures.close()]);
    },
  };
}

export interface InProcessLimitersOptions {
  readonly policy: RateLimitPolicy;
  readonly authFailurePolicy?: AuthFailurePolicy;
  readonly observer: LimiterObserver;
  /** Each key's use of its limits so far today, read from the store at start (used-quota.ts). */
  readonly used?: UsedQuota;
}

/**
 * The embedded default: both limiters in this process (or, with --workers, in the primary for
 * every worker), each decision reported to the observer. The rate limiter resumes from `used`;
 * the brute-force guard starts afresh (a restart forgets at most a minute's window of it).
 */
export function createInProcessLimiters(options: InProcessLimitersOptions): LimiterSet {
  return limiterSetOf(
    {
      limiter: createMemoryRateLimiter(options.policy, options.used === undefined ? {} : { used: options.used }),
      authFailures: createMemoryAuthFailureLimiter(options.authFailurePolicy),
    },
    options.observer,
  );
}
