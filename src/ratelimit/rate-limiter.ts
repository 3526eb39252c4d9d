/**
 * Per-key limits (docs/api.md#limits): one accepted request every `minIntervalMs`, at most
 * `dailyLimit` per UTC calendar day. One adapter per backend: memory.ts (one process),
 * redis-rate-limiter.ts (shared by every instance), fallback-rate-limiter.ts (Redis, or memory
 * while Redis does not answer). `consume` must be atomic: of N simultaneous calls for one key,
 * exactly one is allowed. `now` is the caller's clock; a shared adapter decides on its store's
 * clock instead (Redis `TIME`), so that every instance uses one clock.
 */
export interface RateLimitPolicy {
  readonly minIntervalMs: number;
  readonly dailyLimit: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  /** Requests left today after this one (a refused request does not count). */
  readonly remaining: number;
  /** Epoch ms of the daily reset (the next 00:00:00Z). */
  readonly resetAt: number;
  /** When refused: ms until the next request will be accepted; 0 when allowed. */
  readonly retryAfterMs: number;
}

/**
 * Where a key stands, read without consuming anything (GET /v1/key, docs/api.md#your-key-and-its-limits):
 * what `consume` would decide at the same instant, without counting it.
 */
export interface RateStanding {
  /** Requests left today (never below 0). */
  readonly remaining: number;
  /** Epoch ms of the daily reset (the next 00:00:00Z). */
  readonly resetAt: number;
  /** ms until a request would be accepted: 0 when one would be now (the retryAfterMs of a refusal). */
  readonly waitMs: number;
}

export interface RateLimiter {
  consume(keyId: string, now: number): Promise<RateDecision>;
  /** Reads the key's standing at `now` and changes nothing: no count, no interval, no state kept. */
  peek(keyId: string, now: number): Promise<RateStanding>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Brute-force guard (docs/api.md#limits): once one client address has had `maxFailures`
 * failed authentications within `windowMs`, its requests without a valid key are refused
 * until the window has passed.
 */
export interface AuthFailureLimiter {
  /**
   * Called for a request whose key did not authenticate. Returns 0 when the failure was
   * recorded (answer 401), or the ms until the address may try again (answer 429; not recorded).
   */
  registerFailure(address: string, now: number): Promise<number>;
  close(): Promise<void>;
}

export interface AuthFailurePolicy {
  readonly maxFailures: number;
  readonly windowMs: number;
}

export const AUTH_FAILURE_POLICY: AuthFailurePolicy = { maxFailures: 20, windowMs: 60_000 };
