import type { MealContent } from '../domain/meal.js';
import type { CallTraits } from './guarded-concerns.js';

/**
 * What records meals. Every write of a change ends in the backend's one commit step, which
 * moves the user's change clock, queues the webhook outbox and signals the user's watchers
 * together; a write that changes nothing does none of the three (docs/architecture.md#one-way-a-change-flows).
 */
export interface MealWrites {
  /**
   * Creates or updates meals of one user in one transaction, each with the next value of the
   * user's change clock, in the order given. A deleted meal comes back to life. A meal equal in
   * every field to the user's live meal of that id (an earlier one of the same call included)
   * is no change: nothing is written for it and the clock does not move (docs/cli.md#importing-meals).
   * An id that belongs to another user writes nothing.
   */
  upsertMeals(userId: string, meals: readonly MealContent[], now: number): Promise<UpsertResult>;
  /**
   * upsertMeals for meals that come in batches (`meals import`): the same rules in ONE
   * transaction over every batch, each written as it comes, so memory holds one batch. A
   * foreign id's `index` counts from the first meal of the first batch. When `batches` throws,
   * the transaction rolls back and the error passes on. Nothing else may use this handle
   * meanwhile: on SQLite the transaction is held across the awaits.
   */
  importMeals(userId: string, batches: AsyncIterable<readonly MealContent[]>, now: number): Promise<UpsertResult>;
  /** Turns a live meal into a tombstone (a new change). */
  deleteMeal(userId: string, mealId: string, now: number): Promise<DeleteResult>;
  /**
   * Removes tombstones whose modifiedAt is before `before`; returns how many. In the same
   * transaction each user's watermark (`FeedPage.prunedThrough`) moves up to the newest
   * tombstone removed, never back (docs/api.md#staying-in-sync).
   */
  pruneTombstones(before: number): Promise<number>;
}

export type UpsertResult =
  | { readonly ok: true; readonly created: number; readonly updated: number; readonly unchanged: number }
  /** `index`: the position in the input of the meal whose id belongs to another user. */
  | { readonly ok: false; readonly reason: 'foreign_id'; readonly index: number };

export type DeleteResult = 'deleted' | 'already_deleted' | 'not_found';

export const MEAL_WRITES_TRAITS: CallTraits<MealWrites> = {
  upsertMeals: ['long'],
  importMeals: ['long', 'exclusive'],
  pruneTombstones: ['long', 'background'],
};
