import type { MealSave } from '../domain/meal.js';
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
   * An id that belongs to another user writes nothing. A meal whose `sourceVersion` is not
   * greater than the one stored for it (live or tombstone) is stale: nothing is written for it
   * (domain/source-version.ts); an unchanged meal with a greater one records that version
   * alone, moving no clock.
   */
  upsertMeals(userId: string, meals: readonly MealSave[], now: number): Promise<UpsertResult>;
  /**
   * upsertMeals of one meal, answering what became of it and the meal's modifiedAt after the
   * call (the stored one when unchanged or stale): the host API's `PUT`.
   */
  saveMeal(userId: string, meal: MealSave, now: number): Promise<SaveResult>;
  /**
   * upsertMeals for meals that come in batches (`meals import`): the same rules in ONE
   * transaction over every batch, each written as it comes, so memory holds one batch. A
   * foreign id's `index` counts from the first meal of the first batch. When `batches` throws,
   * the transaction rolls back and the error passes on. Nothing else may use this handle
   * meanwhile: on SQLite the transaction is held across the awaits.
   */
  importMeals(userId: string, batches: AsyncIterable<readonly MealSave[]>, now: number): Promise<UpsertResult>;
  /**
   * One batch of the import of every user's history (meals-io/all-users-import.ts), in one
   * transaction of its own: each record saved for its user under upsertMeals' rules, in input
   * order, so that of two users' records with one id the later is the foreign one. Each user's
   * change is committed once for the batch (one signal, one webhook event per endpoint), not
   * once per meal. A foreign id's `index` is its record's place in `records`.
   */
  importUsersBatch(records: readonly UserMealSave[], now: number): Promise<UpsertResult>;
  /**
   * Turns a live meal into a tombstone (a new change). With a `sourceVersion`: stale when not
   * greater than the stored one; a tombstone already there records a greater one
   * (`already_deleted`, no change); an id no user has gets a tombstone (`deleted`), so that an
   * older save arriving later is stale; another user's id is `foreign_id`. Without one, an id
   * this user does not have is `not_found`.
   */
  deleteMeal(userId: string, mealId: string, now: number, sourceVersion?: number): Promise<DeleteResult>;
  /**
   * Removes tombstones whose modifiedAt is before `before`; returns how many. In the same
   * transaction each user's watermark (`FeedPage.prunedThrough`) moves up to the newest
   * tombstone removed, never back (docs/api.md#staying-in-sync). With `piece`, only the oldest
   * of them: those up to the instant of the `piece`-th oldest (its ties go with it, so a piece
   * is never empty while any is left); tombstone-pieces.ts prunes all of them so.
   */
  pruneTombstones(before: number, piece?: number): Promise<number>;
}

/** A record of the import of every user's history: a meal and the user it is saved for. */
export interface UserMealSave {
  readonly userId: string;
  readonly meal: MealSave;
}

export type UpsertResult =
  | {
      readonly ok: true;
      readonly created: number;
      readonly updated: number;
      readonly unchanged: number;
      readonly stale: number;
    }
  /** `index`: the position in the input of the meal whose id belongs to another user. */
  | { readonly ok: false; readonly reason: 'foreign_id'; readonly index: number };

export type SaveOutcome = 'created' | 'updated' | 'unchanged' | 'stale';

export type SaveResult =
  | { readonly ok: true; readonly outcome: SaveOutcome; readonly modifiedAt: number }
  | { readonly ok: false; readonly reason: 'foreign_id'; readonly index: 0 };

export type DeleteResult = 'deleted' | 'already_deleted' | 'not_found' | 'stale' | 'foreign_id';

export const MEAL_WRITES_TRAITS: CallTraits<MealWrites> = {
  upsertMeals: ['long'],
  saveMeal: ['long'],
  importMeals: ['long', 'exclusive'],
  // Exclusive: on SQLite it waits its turn behind an import running on the same handle.
  importUsersBatch: ['long', 'exclusive'],
  // Not background: a piece of a prune (tombstone-pieces.ts) that meets another connection's
  // write lock waits for it by awaiting, as a request's write does (the SQLite call policy), for
  // up to 5 s, instead of failing the whole prune until the next hour.
  pruneTombstones: ['long'],
};
