import type { MealSave } from '../domain/meal.js';
import { readJsonlStream } from '../meals-io/jsonl-reader.js';
import { type MealFileItem, missingIdFault } from '../meals-io/meal-file.js';
import { type BatchWriter, importMealStream, type ImportOutcome } from '../meals-io/meal-import.js';
import { parseMealRecord } from '../meals-io/meal-record.js';
import { isLineError, type RawItem } from '../meals-io/raw-record.js';
import type { MealRefusal } from './host-meal-operations.js';

/**
 * Meals per batch of the host API's import: a serving process holds a batch across the many
 * body chunks that fill it, long enough for V8 to move it to its old generation, so batches of
 * `meals import`'s 2000 grew the server's peak with the file (96 to 152 MB from 50 k to 200 k
 * meals); batches of 200 kept it flat at the same speed (bench/RESULTS.md).
 */
const HOST_IMPORT_BATCH_SIZE = 200;

/** An import's counts: `imported` records read, the sum of the other four. */
export type ImportedRecords = Extract<ImportOutcome, { readonly ok: true }>;

/** A record checked as the host's import takes it: `meals import`'s rules, and an `id` required. */
function checkRecord(item: RawItem): MealFileItem {
  if (isLineError(item)) return item;
  const missing = missingIdFault(item.line, item.fields);
  if (missing !== undefined) return missing;
  const parsed = parseMealRecord(item.fields, 'json');
  return parsed.ok
    ? { line: item.line, meal: parsed.meal satisfies MealSave }
    : { line: item.line, message: parsed.message, field: parsed.field };
}

async function* checkedRecords(text: AsyncIterable<string>): AsyncGenerator<MealFileItem> {
  for await (const item of readJsonlStream(text)) yield checkRecord(item);
}

/**
 * JSON Lines of meal records (each with its `id`, and an optional `sourceVersion`) written for
 * one user as they come, in one transaction, all or nothing (docs/host-api.md#importing-many-meals):
 * the first bad line is named by its number and the field at fault, and nothing is written.
 */
export async function importHostRecords(
  text: AsyncIterable<string>,
  write: BatchWriter,
): Promise<ImportedRecords | (MealRefusal & { readonly line: number | undefined })> {
  const outcome = await importMealStream(checkedRecords(text), write, undefined, HOST_IMPORT_BATCH_SIZE);
  if (outcome.ok) return outcome;
  if (outcome.reason === 'foreign_id') {
    return { ok: false, reason: 'foreign_id', message: outcome.message, line: outcome.line };
  }
  return { ok: false, reason: 'invalid', field: outcome.field, message: outcome.message, line: outcome.line };
}
