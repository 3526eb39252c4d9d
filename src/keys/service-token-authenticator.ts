import { type DurationClock, durationNow } from '../domain/duration-clock.js';
import type { ServiceTokenRecord } from '../domain/service-token-records.js';
import { digestServiceToken, isWellFormedServiceToken } from '../domain/service-token.js';
import type { ServiceTokenStore } from '../storage/service-token-store.js';

/**
 * Resolves the host API's bearer tokens to service tokens (docs/host-api.md#service-tokens).
 *
 * No cache: every request looks its token up by digest. A revocation then holds on every
 * instance at once, with no cache to invalidate, well within the 1 s bound. It is cheap: a
 * lookup, the digest included, measured 13 µs on SQLite and 230 µs (one round trip to a
 * local server) on PostgreSQL, next to a host request's write of several round trips; and
 * tokens are few and held by one back end, not thousands of clients as API keys are.
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
      if (!isWellFormedServiceToken(token)) return undefined;
      const record = await store.findServiceTokenByDigest(digestServiceToken(token));
      if (record === undefined || record.revokedAt !== null) return undefined;
      noteUse(record.id, now);
      return record;
    },

    async settled() {
      await Promise.all([...touching]);
    },
  };
}
