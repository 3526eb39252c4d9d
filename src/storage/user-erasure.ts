import type { CallTraits } from './guarded-concerns.js';

/** What an erasure found and removed (docs/host-api.md#erasing-a-user): meals count live ones and tombstones. */
export interface ErasedCounts {
  readonly meals: number;
  readonly keys: number;
  readonly webhooks: number;
}

/**
 * A person who leaves takes their data (docs/host-api.md#erasing-a-user). In one transaction:
 * the user's meals and tombstones, keys (connected apps' among them) and their daily counts,
 * sign-in links, sessions and their pending page results, the change clock and digest, and
 * webhook endpoints with their events and attempts, but that each enabled endpoint keeps its
 * URL and secrets for one last `user.erased` event, queued here and due now, out of the
 * user's reach (no list, no count, no change of a later user of the id reaches it); the
 * sender removes it once that event is delivered or given up (domain/webhook-retry.ts). The
 * erased clock raises the store's clock floor, so that a user id used again starts after
 * every position its former life handed out. A user with nothing answers zeros.
 */
export interface UserErasure {
  eraseUser(userId: string, now: number): Promise<ErasedCounts>;
  /**
   * On PostgreSQL, vacuums the tables an erasure left dead rows in, when one is due (a serving
   * instance asks every minute: serve/erasure-vacuum.ts); true when it ran. SQLite's erasure
   * leaves nothing to do: false.
   */
  vacuumErased(now: number): Promise<boolean>;
}

/** Either may take long: a user with 100 000 meals; the vacuum waits for its turn. */
export const USER_ERASURE_TRAITS: CallTraits<UserErasure> = {
  eraseUser: ['long'],
  vacuumErased: ['long', 'background'],
};
