import { isValidUserId, USER_ID_RULE } from '../domain/user-id.js';
import { describeUsersImportStop, importUsersStream } from '../meals-io/all-users-import.js';
import { missingIdFault } from '../meals-io/meal-file.js';
import { parseMealRecord } from '../meals-io/meal-record.js';
import { USER_ID_FIELD, type UserMealFileItem } from '../meals-io/users-meal-file.js';
import type { Storage } from '../storage/storage.js';
import type { HistoryInput, ImportedHistory, MealHost } from './meal-host-types.js';
import { MealHostError } from './meal-host-error.js';

/** Each input checked as the host API's history import checks a line; `line` is its index. */
async function* checkedInputs(
  inputs: Iterable<HistoryInput> | AsyncIterable<HistoryInput>,
): AsyncGenerator<UserMealFileItem> {
  let index = 0;
  for await (const input of inputs) {
    const line = index;
    index += 1;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      yield { line, message: 'A meal must be an object.' };
      continue;
    }
    const fields = input as unknown as Readonly<Record<string, unknown>>;
    const { userId } = fields;
    if (typeof userId !== 'string' || !isValidUserId(userId)) {
      yield { line, message: `${USER_ID_RULE}.`, field: USER_ID_FIELD };
      continue;
    }
    const missing = missingIdFault(line, fields);
    if (missing !== undefined) {
      yield missing;
      continue;
    }
    const parsed = parseMealRecord(fields, 'json', undefined, USER_ID_FIELD);
    yield parsed.ok ? { line, userId, meal: parsed.meal } : { line, message: parsed.message, field: parsed.field };
  }
}

/**
 * importHistory: the app's history as the host API's POST /host/v1/meals/import takes it
 * (docs/host-api.md#importing-the-apps-history), from objects: committed in batches of whole
 * users; a fault throws invalid_meal or id_taken with the record's index, the batches before it kept.
 */
export function createHostHistory(storage: Storage): Pick<MealHost, 'importHistory'> {
  return {
    async importHistory(inputs): Promise<ImportedHistory> {
      const outcome = await importUsersStream(
        checkedInputs(inputs),
        (records) => storage.writes.importUsersBatch(records, Date.now()),
        { recordWord: 'Meal' },
      );
      if (outcome.ok) {
        const { imported, created, updated, unchanged, stale, batches } = outcome;
        return { imported, created, updated, unchanged, stale, batches };
      }
      const message = describeUsersImportStop(outcome, 'call again with the same meals', 'Meal');
      throw new MealHostError(outcome.reason === 'foreign_id' ? 'id_taken' : 'invalid_meal', message, outcome.line);
    },
  };
}
