import { type DurationClock, durationNow } from '../domain/duration-clock.js';
import type { ServiceTokenRecord } from '../domain/service-token-records.js';
import { digestServiceToken, isWellFormedServiceToken } from '../domain/service-token.js';
import type { ServiceTokenStore } from '../storage/service-token-store.js';

/**
 * Resolves the host API's bearer tokens to service tokens (docs/host-api.md#service-tokens).
 *
 * A token found active is trusted for 500 ms from its lookup, keyed by the token's text: a
 * revocation then holds on every instance within that, inside the 1 s bound, with nothing to
 * invalidate. The cache spares a back end saving meals one at a time a lookup and a SHA-256
 * per request (7 % of a single-meal PUT's CPU on SQLite, bench/RESULTS.md); refusals are never
 * cached, so a token made a moment ago works at once. Tokens are few: the cache holds the
 * tokens of the last half second, no more.
 */
export interface ServiceTokenAuthenticator {
  /**
   * The active token the text names, or undefined: malformed or failing its checksum (refused
   * with no lookup), unknown, or revoked. Notes the use for lastUsedAt, in the background.
   */
  authenticate(token: string, now: number): Promise<ServiceTokenRecord | undefined>;
  /** Resolves once the lastUsedAt writes started so far are over (before closing the store). */
  settled(): Promise<void>;
}

export interface ServiceTokenAuthenticatorOptions {
  /** lastUsedAt is written at most once per this many ms per token by this process (default 60 000). */
  readonly touchIntervalMs?: number;
  /** Told why a lastUsedAt write failed; by default the failure is dropped (the next use writes again). */
  readonly onTouchFailure?: (error: unknown) => void;
  /** Tests only: 'caller' measures the interval on the `now` given (default 'monotonic'). */
  readonly clock?: DurationClock;
  /** How long a token found active is trusted without a lookup (default 500 ms; 0: never). */
  readonly trustMs?: number;
}

export function createServiceTokenAuthenticator(
  store: Pick<ServiceTokenStore, 'findServiceTokenByDigest' | 'touchServiceToken'>,
  options: ServiceTokenAuthenticatorOptions = {},
): ServiceTokenAuthenticator {
  const interval = options.touchIntervalMs ?? 60_000;
  const clock = options.clock ?? 'monotonic';
  const onTouchFailure = options.onTouchFailure ?? (() => undefined);
  // Token id -> when this process last wrote its lastUsedAt, on the duration clock. One entry a
  // token: there are few, and only tokens that authenticated get one.
  const touchedAt = new Map<string, number>();
  const touching = new Set<Promise<void>>();
  const trustMs = options.trustMs ?? 500;
  // Token text -> its record and when it was looked up, on the duration clock.
  let trusted = new Map<string, { readonly record: ServiceTokenRecord; readonly at: number }>();

  /** Records the use without the request waiting for it; a failure is reported, never unhandled. */
  function noteUse(id: string, now: number): void {
    const at = durationNow(clock, now);
    const last = touchedAt.get(id);
    if (last !== undefined && at - last < interval) return;
    // Marked before the write, so that the requests arriving meanwhile do not write too.
    touchedAt.set(id, at);
    const write = Promise.resolve()
      .then(() => store.touchServiceToken(id, now))
      .catch((error: unknown) => {
        try {
          onTouchFailure(error);
        } catch {
          // A reporter that throws must not make the failure unhandled.
        }
      })
      .finally(() => touching.delete(write));
    touching.add(write);
  }

  return {
    async authenticate(token, now) {
      const at = durationNow(clock, now);
      const known = trusted.get(token);
      if (known !== undefined && at - known.at < trustMs) {
        noteUse(known.record.id, now);
        return known.record;
      }
      if (!isWellFormedServiceToken(token)) return undefined;
      const record = await store.findServiceTokenByDigest(digestServiceToken(token));
      if (record === undefined || record.revokedAt !== null) return undefined;
      // Entries older than the trust go with the next lookup: the map holds the last half second's tokens.
      if (trusted.size > 0 && [...trusted.values()].some((entry) => at - entry.at >= trustMs)) {
        trusted = new Map([...trusted].filter(([, entry]) => at - entry.at < trustMs));
      }
      if (trustMs > 0) trusted.set(token, { record, at });
      noteUse(record.id, now);
      return record;
    },

    async settled() {
      await Promise.all([...touching]);
    },
  };
}
