import { formatInstant } from './instant.js';

/**
 * The body of GET /v1/key (docs/api.md#your-key-and-its-limits): the key as `keys list` shows
 * it, and where it stands against its limits, read without spending a request. The service
 * sends exactly these fields, in this order; instants as `YYYY-MM-DDTHH:mm:ss.sssZ`. A later /v1
 * may add fields (docs/api.md#compatibility), which a client ignores.
 */
export interface KeyInfo {
  readonly ok: true;
  readonly key: {
    readonly id: string;
    readonly name: string;
    readonly prefix: string;
    readonly userId: string;
    readonly createdAt: string;
    readonly expiresAt: string | null;
  };
  readonly limits: {
    readonly daily: number;
    /** Accepted requests today: usedToday + remainingToday = daily. */
    readonly usedToday: number;
    readonly remainingToday: number;
    /** The next 00:00:00Z, when the daily count starts over. */
    readonly resetsAt: string;
    readonly minIntervalMs: number;
    /** When the key's next /v1/meals request will be accepted: the answer's own time when now. */
    readonly nextAcceptedAt: string;
  };
}

/** Where the key stands against its limits at `now`, as the limiter read it without consuming. */
export interface KeyLimitStanding {
  readonly dailyLimit: number;
  readonly minIntervalMs: number;
  /** Requests left today, 0 to dailyLimit. */
  readonly remaining: number;
  /** Epoch ms of the next 00:00:00Z. */
  readonly resetAt: number;
  /** ms until a request would be accepted: 0 when now. */
  readonly waitMs: number;
}

/**
 * What the body shows of a key (an ApiKeyRecord of key-records.ts has these and more). Declared
 * here so that the SDK's declarations, which carry KeyInfo, do not carry the store's records.
 */
export interface KeyFields {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly prefix: string;
  readonly createdAt: number;
  readonly expiresAt: number | null;
}

export function keyInfoOf(key: KeyFields, standing: KeyLimitStanding, now: number): KeyInfo {
  const remaining = Math.min(Math.max(standing.remaining, 0), standing.dailyLimit);
  return {
    ok: true,
    key: {
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      userId: key.userId,
      createdAt: formatInstant(key.createdAt),
      expiresAt: key.expiresAt === null ? null : formatInstant(key.expiresAt),
    },
    limits: {
      daily: standing.dailyLimit,
      usedToday: standing.dailyLimit - remaining,
      remainingToday: remaining,
      resetsAt: formatInstant(standing.resetAt),
      minIntervalMs: standing.minIntervalMs,
      // With today's quota used up the wait runs to the reset (past it only when an interval begun
      // just before midnight still runs then): the instant Retry-After would name.
      nextAcceptedAt: formatInstant(now + Math.max(0, standing.waitMs)),
    },
  };
}
