import type { MealSave } from '../domain/meal.js';
import { isValidUserId, USER_ID_RULE } from '../domain/user-id.js';
import type { MealFileFormat } from './file-format.js';
import { missingIdFault, readRawGroups, sourceOf } from './meal-file.js';
import { parseMealRecord, type RecordSource } from './meal-record.js';
import { isLineError, type LineError, type RawItem } from './raw-record.js';

/** A record of the import of every user's history: a checked meal and the user it is for. */
export interface UserImportedMeal {
  readonly line: number;
  readonly userId: string;
  readonly meal: MealSave;
}

/** One step of such a file, in line order: a checked record, or a fault. */
export type UserMealFileItem = UserImportedMeal | LineError;

export function isUserImportedMeal(item: UserMealFileItem): item is UserImportedMeal {
  return 'meal' in item;
}

/** The column, or JSON field, that names each record's user. */
export const USER_ID_FIELD = 'userId';

/**
 * Reads and checks a file of every user's meals as its text comes (docs/cli.md#importing-every-users-history):
 * each record is a meal file's record, checked by the same parser as any import, with one field
 * more, `userId`, the user it is for.
 */
export async function* readUsersMealFile(
  pieces: AsyncIterable<string>,
  format: MealFileFormat,
  /** The host API's: every record names its meal (meal-file.ts missingIdFault). */
  idRequired = false,
): AsyncGenerator<UserMealFileItem> {
  const source = sourceOf(format);
  for await (const group of readRawGroups(pieces, format, [USER_ID_FIELD])) {
    for (const item of group) yield checkUserItem(item, source, idRequired);
  }
}

/** A record of every user's history checked: its user and meal, or the fault of its line. */
function checkUserItem(item: RawItem, source: RecordSource, idRequired: boolean): UserMealFileItem {
  if (isLineError(item)) return item;
  const { fields, line } = item;
  const userId = fields[USER_ID_FIELD];
  if (typeof userId !== 'string' || !isValidUserId(userId)) {
    const got = userId === undefined ? 'it is missing' : `got ${JSON.stringify(userId)}`;
    return { line, message: `${USER_ID_RULE} (${got}).`, field: USER_ID_FIELD };
  }
  const missing = idRequired ? missingIdFault(line, fields) : undefined;
  if (missing !== undefined) return missing;
  const result = parseMealRecord(fields, source, undefined, USER_ID_FIELD);
  return result.ok ? { line, userId, meal: result.meal } : { line, message: result.message, field: result.field };
}
