import type { LimiterLog } from '../../src/ratelimit/limiter-log.js';
import type { LimiterObserver } from '../../src/ratelimit/limiter-observer.js';

/** A log and an observer that keep what the limiters tell them, as lines, for assertions. */
export interface LimiterRecorder {
  readonly log: LimiterLog;
  readonly observer: LimiterObserver;
  /** Every event so far: `decision rate redis true`, `fallback rate`, `warn {...} msg`, ... */
  readonly events: string[];
  count(prefix: string): number;
  /** The last decision's event, e.g. `decision rate memory true`. */
  lastDecision(limiter: 'rate' | 'auth_failures'): string | undefined;
}

export function recordLimiterEvents(): LimiterRecorder {
  const events: string[] = [];
  return {
    events,
    log: {
      warn: (obj, msg) => events.push(`warn ${JSON.stringify(obj)} ${msg}`),
      info: (obj, msg) => events.push(`info ${JSON.stringify(obj)} ${msg}`),
    },
    observer: {
      decision: (limiter, backend, allowed) => events.push(`decision ${limiter} ${backend} ${allowed}`),
      fallback: (limiter) => events.push(`fallback ${limiter}`),
      recovered: (limiter) => events.push(`recovered ${limiter}`),
    },
    count: (prefix) => events.filter((event) => event.startsWith(prefix)).length,
    lastDecision: (limiter) => events.findLast((event) => event.startsWith(`decision ${limiter} `)),
  };
}
