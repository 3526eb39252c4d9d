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
 * Reads, once at start and before the first request, what the in-process limiter resumes from:
 * each key's accepted requests today and its latest acceptance, as they were flushed, so that a
 * restart gives no key a fresh day. Why at start, by whom, and what a crash loses:
 * docs/operations.md#limits-across-restarts. A failed read fails the start, as a store that
 * cannot be opened does.
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
