import { digestApiKey, isActiveKey, isWellFormedApiKey } from '../domain/api-key.js';
import { type DurationClock, durationNow } from '../domain/duration-clock.js';
import type { AcceptedRequests, ApiKeyRecord } from '../domain/key-records.js';
import { createPacedBatches } from '../domain/paced-batches.js';
import type { KeyStore } from '../storage/key-store.js';
import type { QuotaStore } from '../storage/quota-store.js';

/**
 * Resolves bearer tokens to keys. Lookups are cached for `cacheTtlMs` (below the 1 s
 * revocation bound, docs/api.md#keys), so a busy key costs one store lookup per
 * interval, not one per request. The TTL is a duration (domain/duration-clock.ts): a wall
 * clock stepped back does not keep a revoked key cached; a key's expiry is an instant. Uses are recorded in memory and written in batches.
 */
export interface KeyAuthenticator {
  /**
   * The active key the token names, or undefined (unknown, malformed, revoked, expired).
   * 'paced' (for a client address the brute-force guard has blocked): a key not cached is
   * looked up in a paced batch with the others waiting (domain/paced-batches.ts), and only a
   * key found is cached, so that a flood of made-up keys costs the store a few queries a
   * second and cannot push the keys in use out of the cache.
   */
  authenticate(token: string, now: number, lookup?: KeyLookup): Promise<ApiKeyRecord | undefined>;
  /**
   * Notes that a key was used, for `keys list`'s lastUsedAt, and, when the request was
   * `accepted` (not refused with 429: docs/api.md#limits), counts it for its UTC day: the
   * app page's "today's quota use" and chart, and where a restarted limiter resumes (with the
   * latest acceptance: ratelimit/used-quota.ts). Memory only: a map update per request.
   */
  noteUse(keyId: string, now: number, accepted: boolean): void;
  /** Writes the noted uses to the store in one batch; on failure they are kept for the next. */
  flushUses(): Promise<void>;
}

/** The two storage operations authentication needs. */
export interface KeyAuthenticatorStore {
  readonly keys: Pick<KeyStore, 'findApiKeysByDigests'>;
  readonly quota: Pick<QuotaStore, 'recordKeyUse'>;
}

/** 'at-once': one query of its own (the default); 'paced': in a paced batch. */
export type KeyLookup = 'at-once' | 'paced';

const DAY_MS = 86_400_000;

/** Accepted requests as noted: the latest acceptance is always known here. */
type NotedRequests = AcceptedRequests & { readonly lastAcceptedAt: number };

interface CacheEntry {
  readonly key: ApiKeyRecord | undefined;
  /** On the duration clock. */
  readonly expiresAt: number;
}

export interface KeyAuthenticatorOptions {
  readonly cacheTtlMs?: number;
  readonly maxCacheEntries?: number;
  /** Paced lookups: one batch at most every this many ms (default 50), of at most maxBatch (default 1000). */
  readonly pacedBatchIntervalMs?: number;
  readonly pacedMaxBatch?: number;
  /** Tests only: 'caller' measures the TTL on the `now` given (default 'monotonic'). */
  readonly clock?: DurationClock;
}

export function createKeyAuthenticator(
  storage: KeyAuthenticatorStore,
  options: KeyAuthenticatorOptions = {},
): KeyAuthenticator {
  const ttl = options.cacheTtlMs ?? 500;
  const maxEntries = options.maxCacheEntries ?? 10_000;
  const clock = options.clock ?? 'monotonic';
  const cache = new Map<string, CacheEntry>();
  const inFlight = new Map<string, Promise<ApiKeyRecord | undefined>>();
  let pendingUses = new Map<string, number>();
  // `${day} ${keyId}` -> accepted requests of that key that day since the last flush, and the
  // latest of them: the store keeps both together, where a restarted limiter resumes from
  // (ratelimit/used-quota.ts), so a crash loses the same last seconds of each.
  let pendingRequests = new Map<string, NotedRequests>();

  const pacedBatches = createPacedBatches((digests: readonly Buffer[]) => storage.keys.findApiKeysByDigests(digests), {
    minIntervalMs: options.pacedBatchIntervalMs ?? 50,
    maxBatch: options.pacedMaxBatch ?? 1000,
  });

  async function lookup(
    digest: Buffer,
    cacheKey: string,
    now: number,
    pace: KeyLookup,
  ): Promise<ApiKeyRecord | undefined> {
    const key =
      pace === 'paced' ? await pacedBatches.load(digest) : (await storage.keys.findApiKeysByDigests([digest]))[0];
    if (key === undefined && pace === 'paced') return undefined;
    // Map order is insertion order: dropping the first entry drops the oldest.
    if (cache.size >= maxEntries) {
      const oldest = cache.keys().next();
      if (oldest.done !== true) cache.delete(oldest.value);
    }
    cache.set(cacheKey, { key, expiresAt: durationNow(clock, now) + ttl });
    return key;
  }

  return {
    async authenticate(token, now, pace = 'at-once') {
      // A token that fails the checksum is refused without a lookup.
      if (!isWellFormedApiKey(token)) return undefined;
      const digest = digestApiKey(token);
      // The digest's bytes as a string, the cheapest map key.
      const cacheKey = digest.toString('latin1');
      const cached = cache.get(cacheKey);
      let key: ApiKeyRecord | undefined;
      if (cached !== undefined && cached.expiresAt > durationNow(clock, now)) key = cached.key;
      else {
        let pending = inFlight.get(cacheKey);
        if (pending === undefined) {
          pending = lookup(digest, cacheKey, now, pace).finally(() => inFlight.delete(cacheKey));
          inFlight.set(cacheKey, pending);
        }
        key = await pending;
      }
      return key !== undefined && isActiveKey(key, now) ? key : undefined;
    },

    noteUse(keyId, now, accepted) {
      pendingUses.set(keyId, now);
      if (!accepted) return;
      const day = Math.floor(now / DAY_MS);
      const slot = `${day} ${keyId}`;
      const noted = pendingRequests.get(slot);
      // Requests finish their checks out of order: the latest acceptance is the largest `now`.
      pendingRequests.set(slot, {
        keyId,
        day,
        requests: (noted?.requests ?? 0) + 1,
        lastAcceptedAt: Math.max(now, noted?.lastAcceptedAt ?? now),
      });
    },

    async flushUses() {
      if (pendingUses.size === 0 && pendingRequests.size === 0) return;
      const [uses, requests] = [pendingUses, pendingRequests];
      pendingUses = new Map();
      pendingRequests = new Map();
      try {
        await storage.quota.recordKeyUse({ lastUsed: uses, requests: [...requests.values()] });
      } catch (error) {
        // Kept for the next flush, merged with what came since: counts add up, last use is the latest.
        for (const [keyId, at] of uses) pendingUses.set(keyId, Math.max(at, pendingUses.get(keyId) ?? at));
        for (const [slot, count] of requests) {
          const since = pendingRequests.get(slot);
          pendingRequests.set(slot, {
            ...count,
            requests: count.requests + (since?.requests ?? 0),
            lastAcceptedAt: Math.max(count.lastAcceptedAt, since?.lastAcceptedAt ?? count.lastAcceptedAt),
          });
        }
        throw error;
      }
    },
  };
}
