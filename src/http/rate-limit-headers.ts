import type { RateDecision, RateLimitPolicy } from '../ratelimit/rate-limiter.js';

const DAY_SECONDS = 86_400;

/**
 * The RateLimit-Policy value (docs/api.md#limits), fixed for the process: the daily quota,
 * and the interval in whole seconds (rounded up) unless there is none.
 */
export function rateLimitPolicyHeader(policy: RateLimitPolicy): string {
  const daily = `"daily";q=${policy.dailyLimit};w=${DAY_SECONDS}`;
  return policy.minIntervalMs > 0 ? `${daily}, "interval";q=1;w=${Math.ceil(policy.minIntervalMs / 1000)}` : daily;
}

/**
 * Adds the rate-limit headers of one decision to an authenticated response's headers (name,
 * value, …); or of a key's standing (GET /v1/key), which counts nothing: what is left as it stands.
 */
export function addRateLimitHeaders(
  headers: string[],
  policyHeader: string,
  policy: RateLimitPolicy,
  decision: Pick<RateDecision, 'remaining' | 'resetAt'>,
  now: number,
): void {
  const resetSeconds = Math.ceil((decision.resetAt - now) / 1000);
  headers.push(
    'ratelimit-policy',
    policyHeader,
    'ratelimit',
    `"daily";r=${decision.remaining};t=${resetSeconds}`,
    'x-ratelimit-limit',
    String(policy.dailyLimit),
    'x-ratelimit-remaining',
    String(decision.remaining),
    'x-ratelimit-reset',
    String(Math.floor(decision.resetAt / 1000)),
  );
}

/** Retry-After: whole seconds, rounded up, until a request will be accepted. */
export function retryAfterSeconds(waitMs: number): string {
  return String(Math.max(1, Math.ceil(waitMs / 1000)));
}
