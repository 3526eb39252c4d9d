import type { KeyDayRequests, KeyDayUse, KeyUses } from '../domain/key-records.js';
import type { CallTraits } from './guarded-concerns.js';

/** Each key's use: its last use and its accepted requests per UTC day (docs/operations.md#limits-across-restarts). */
export interface QuotaStore {
  /**
   * Records a batch of key uses in one transaction: each key's lastUsedAt (never moved back)
   * and its accepted requests per UTC day, ADDED to what the store holds (several instances
   * flush their own counts for the same key and day), with the latest acceptance of that day
   * (never moved back either). Unknown key ids are ignored.
   */
  recordKeyUse(uses: KeyUses): Promise<void>;
  /**
   * Every key's accepted requests per day for the days `fromDay` on, each with the latest
   * acceptance: what the in-process limiter starts from after a restart. In no particular order.
   */
  listKeyRequestsSince(fromDay: number): Promise<KeyDayUse[]>;
  /**
   * Accepted requests per day of every key the user holds (revoked and expired included), for
   * the days `fromDay` to `toDay` inclusive, ordered by key id then day; days without requests are absent.
   */
  listKeyRequests(userId: string, fromDay: number, toDay: number): Promise<KeyDayRequests[]>;
  /** Removes the daily request counts of days before `beforeDay`; returns how many rows. */
  pruneKeyRequests(beforeDay: number): Promise<number>;
}

/** The key-use flush and the daily prune wait for the next turn rather than for a write lock. */
export const QUOTA_STORE_TRAITS: CallTraits<QuotaStore> = {
  recordKeyUse: ['background'],
  pruneKeyRequests: ['background'],
};
