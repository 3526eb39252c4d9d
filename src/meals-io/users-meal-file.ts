import type { MealSave } from '../domain/meal.js';
import { isValidUserId, USER_ID_RULE } from '../domain/user-id.js';
import { readCsvStream } from './csv-reader.js';
import type { MealFileFormat } from './file-format.js';
import { readJsonlStream } from './jsonl-reader.js';
import { missingIdFault } from './meal-file.js';
import { parseMealRecord } from './meal-record.js';
import { isLineError, type LineError } from './raw-record.js';

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
  const items = format === 'csv' ? readCsvStream(pieces, [USER_ID_FIELD]) : readJsonlStream(pieces);
  for await (const item of items) {
    if (isLineError(item)) {
      yield item;
      continue;
    }
    const { [USER_ID_FIELD]: userId, ...fields } = item.fields;
    if (typeof userId !== 'string' || !isValidUserId(userId)) {
      const got = userId === undefined ? 'it is missing' : `got ${JSON.stringify(userId)}`;
      yield { line: item.line, message: `${USER_ID_RULE} (${got}).`, field: USER_ID_FIELD };
      continue;
    }
    const missing = idRequired ? missingIdFault(item.line, fields) : undefined;
    if (missing !== undefined) {
      yield missing;
      continue;
    }
    const result = parseMealRecord(fields, format === 'csv' ? 'csv' : 'json');
    yield result.ok
      ? { line: item.line, userId, meal: result.meal }
      : { line: item.line, message: result.message, field: result.field };
  }
}
