import { formatInstant } from '../domain/instant.js';
import type { MealSave } from '../domain/meal.js';
import { mealIdFault } from '../domain/meal-id.js';
import { isValidUserId, USER_ID_RULE } from '../domain/user-id.js';
import { parseMealRecord } from '../meals-io/meal-record.js';
import type { MealFeed } from '../storage/meal-feed.js';
import type { DeleteResult, MealWrites, SaveOutcome } from '../storage/meal-writes.js';

/**
 * The meal operations of the host API and `meal-export/host` alike (docs/host-api.md#saving-and-deleting-meals):
 * one piece of code checks a record and hands it to the store, each caller turning a refusal
 * into its own kind of error.
 */

export type MealRefusal =
  /**
   * `field`: the field at fault, undefined for a line that is no record; `inPath`: the field is
   * an id of the path (`userId`, `mealId`), not one of the record's.
   */
  | {
      readonly ok: false;
      readonly reason: 'invalid';
      readonly field: string | undefined;
      readonly message: string;
      readonly inPath?: true;
    }
  | { readonly ok: false; readonly reason: 'foreign_id'; readonly message: string };

export type SavedMeal = {
  readonly ok: true;
  readonly id: string;
  readonly outcome: SaveOutcome;
  readonly modifiedAt: string;
};

function idsFault(userId: string, mealId: string): MealRefusal | undefined {
  if (!isValidUserId(userId)) {
    return { ok: false, reason: 'invalid', field: 'userId', message: `${USER_ID_RULE}.`, inPath: true };
  }
  const fault = mealIdFault(mealId);
  return fault === undefined
    ? undefined
    : { ok: false, reason: 'invalid', field: 'mealId', message: `mealId must ${fault}.`, inPath: true };
}

const foreign = (mealId: string): MealRefusal => ({
  ok: false,
  reason: 'foreign_id',
  message: `The meal id ${JSON.stringify(mealId).slice(0, 80)} belongs to another user.`,
});

/**
 * Checks a record by the one parser of every door (a meal a GET answered included: its `id`
 * must be `mealId`) and saves it as the meal `mealId` of the user.
 */
export async function saveRecord(
  writes: MealWrites,
  userId: string,
  mealId: string,
  record: Readonly<Record<string, unknown>>,
  now: number,
): Promise<SavedMeal | MealRefusal> {
  const idFault = idsFault(userId, mealId);
  if (idFault !== undefined) return idFault;
  const parsed = parseMealRecord(record, 'json', mealId);
  if (!parsed.ok) return { ok: false, reason: 'invalid', field: parsed.field, message: parsed.message };
  const meal: MealSave = parsed.meal;
  const result = await writes.saveMeal(userId, meal, now);
  if (!result.ok) return foreign(mealId);
  return { ok: true, id: mealId, outcome: result.outcome, modifiedAt: formatInstant(result.modifiedAt) };
}

export type DeletedMeal =
  | { readonly ok: true; readonly id: string; readonly outcome: 'deleted' | 'unchanged' | 'stale' }
  | { readonly ok: false; readonly reason: 'not_found' }
  | MealRefusal;

const DELETE_OUTCOMES: Readonly<
  Record<Exclude<DeleteResult, 'not_found' | 'foreign_id'>, 'deleted' | 'unchanged' | 'stale'>
> = {
  deleted: 'deleted',
  already_deleted: 'unchanged',
  stale: 'stale',
};

/** Deletes the meal `mealId` of the user, with the version of the delete when the app gives one. */
export async function deleteRecord(
  writes: MealWrites,
  userId: string,
  mealId: string,
  sourceVersion: number | undefined,
  now: number,
): Promise<DeletedMeal> {
  const idFault = idsFault(userId, mealId);
  if (idFault !== undefined) return idFault;
  const result = await writes.deleteMeal(userId, mealId, now, sourceVersion);
  if (result === 'not_found') return { ok: false, reason: 'not_found' };
  if (result === 'foreign_id') return foreign(mealId);
  return { ok: true, id: mealId, outcome: DELETE_OUTCOMES[result] };
}

/** A meal as the feed shows it with includeDeleted, plus its sourceVersion: JSON text, or undefined. */
export async function storedMealJson(feed: MealFeed, userId: string, mealId: string): Promise<string | undefined> {
  const stored = await feed.getMeal(userId, mealId);
  if (stored === undefined) return undefined;
  // The item's text ends with its closing brace: the version goes last.
  return `${stored.item.slice(0, -1)},"sourceVersion":${stored.sourceVersion ?? 'null'}}`;
}
