import type { QuotaStore } from '../storage/quota-store.js';
import type { RateLimitPolicy } from './rate-limiter.js';

const DAY_MS = 86_400_000;

/** One key's use of its limits when an in-process limiter starts. */
export interface KeyUsedQuota {
  readonly keyId: string;
  /** Accepted requests on the UTC day of `UsedQuota.at`. */
  readonly usedToday: number;
  /** Epoch ms of its latest accepted request, when known and recent enough to hold the interval. */
  readonly lastAcceptedAt: number | undefined;
}

/** What an in-process limiter starts from (memory.ts): every key's use, as read at `at` (epoch ms). */
export interface UsedQuota {
  readonly at: number;
  readonly keys: readonly KeyUsedQuota[];
}

/**
 * Reads, once at start, what the in-process limiter resumes from (CONTRACT.md section 4: "The
 * counts survive a restart of the service: exactly after a graceful stop (SIGTERM), and after a
 * crash at most the last 5 s of accepted requests are forgotten").
 *
 * - **What**: each key's accepted requests today and its latest acceptance, as the key
 *   authenticator flushes them (domain/key-authenticator.ts): every 5 s while serving and once
 *   more on a graceful close, after the last response (server.ts). Count and last acceptance
 *   are one row written by one statement, so a crash loses the same last seconds of both: the
 *   interval then runs from the latest acceptance that was flushed, the forgotten request's
 *   interval forgotten with it, as the contract allows.
 * - **When: eagerly, before the first request**, rather than lazily at each key's first
 *   request after start. One range read on the day index, bounded by the keys used today (and
 *   those of yesterday only within `minIntervalMs` of midnight, for their interval), holding
 *   in memory no more than the limiter would if those keys came back today (yesterday's states
 *   are swept as before). Nothing then changes on the request path: no store read there, no
 *   per-key serialisation of first requests to get right (the limiter decides in one callback,
 *   so of N simultaneous requests one is accepted, as before), no 503 when the store is slow
 *   at a key's first request, nothing added to the cluster's 1 s IPC bound. Lazy loading would
 *   only spare the start this one read.
 * - **Where**: the process that holds the in-process limiter: `serve` alone, or with
 *   `--workers` the primary, before any worker starts; the workers flush their own shares, which
 *   the store adds up. With Redis the counts live in Redis and nothing is read here.
 * - Several instances on one store without Redis each limit alone (no contract of exactness
 *   across them then): each starts from what all of them flushed, never looser than before.
 *
 * A failed read fails the start, as a store that cannot be opened does: serving with a fresh
 * day for every key is what this is here to prevent.
 */
export async function loadUsedQuota(
  quota: Pick<QuotaStore, 'listKeyRequestsSince'>,
  policy: RateLimitPolicy,
  now: number,
): Promise<UsedQuota> {
  const today = Math.floor(now / DAY_MS);
  // The interval may reach back into yesterday only within minIntervalMs of midnight.
  const intervalFrom = now - policy.minIntervalMs;
  const rows = await quota.listKeyRequestsSince(Math.min(today, Math.floor(intervalFrom / DAY_MS)));
  const keys = new Map<string, { usedToday: number; lastAcceptedAt: number | undefined }>();
  for (const row of rows) {
    const key = keys.get(row.keyId) ?? { usedToday: 0, lastAcceptedAt: undefined };
    if (row.day === today) key.usedToday += row.requests;
    if (row.lastAcceptedAt !== null && row.lastAcceptedAt > (key.lastAcceptedAt ?? Number.NEGATIVE_INFINITY)) {
      key.lastAcceptedAt = row.lastAcceptedAt;
    }
    keys.set(row.keyId, key);
  }
  const used: KeyUsedQuota[] = [];
  for (const [keyId, { usedToday, lastAcceptedAt }] of keys) {
    // An acceptance whose interval is over holds nothing back.
    const recent = lastAcceptedAt !== undefined && lastAcceptedAt > intervalFrom ? lastAcceptedAt : undefined;
    if (usedToday > 0 || recent !== undefined) used.push({ keyId, usedToday, lastAcceptedAt: recent });
  }
  return { at: now, keys: used };
}
