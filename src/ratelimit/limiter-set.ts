import type { LimiterObserver } from './limiter-observer.js';
import { createMemoryRateLimiter } from './memory.js';
import { createMemoryAuthFailureLimiter } from './memory-auth-failures.js';
import type { AuthFailureLimiter, AuthFailurePolicy, RateLimiter, RateLimitPolicy } from './rate-limiter.js';

/**
 * - `in-process`: no shared store configured; each instance limits alone.
 * - `shared`: Redis decides for every instance.
 * - `fallback`: Redis is configured but does not answer: this instance decides alone until it
 *   does (CONTRACT.md section 4); still ready, but worth telling in /readyz.
 */
export type LimiterMode = 'in-process' | 'shared' | 'fallback';

/** The two limiters a server needs, as one piece to wire, report and close. */
export interface LimiterSet {
  readonly limiter: RateLimiter;
  readonly authFailures: AuthFailureLimiter;
  mode(): LimiterMode;
  close(): Promise<void>;
}

export interface InProcessLimitersOptions {
  readonly policy: RateLimitPolicy;
  readonly authFailurePolicy?: AuthFailurePolicy;
  readonly observer: LimiterObserver;
}

/** The embedded default: both limiters in this process, each decision reported to the observer. */
export function createInProcessLimiters(options: InProcessLimitersOptions): LimiterSet {
  const { observer } = options;
  const rate = createMemoryRateLimiter(options.policy);
  const auth = createMemoryAuthFailureLimiter(options.authFailurePolicy);
  return {
    limiter: {
      async consume(keyId, now) {
        const decision = await rate.consume(keyId, now);
        observer.decision('rate', 'memory', decision.allowed);
        return decision;
      },
      ping: () => rate.ping(),
      close: () => rate.close(),
    },
    authFailures: {
      async registerFailure(address, now) {
        const waitMs = await auth.registerFailure(address, now);
        observer.decision('auth_failures', 'memory', waitMs === 0);
        return waitMs;
      },
      close: () => auth.close(),
    },
    mode: () => 'in-process',
    async close() {
      await Promise.all([rate.close(), auth.close()]);
    },
  };
}
