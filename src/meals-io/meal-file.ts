import type { MealSave } from '../domain/meal.js';
import { readCsvGroups } from './csv-reader.js';
import type { MealFileFormat } from './file-format.js';
import { readJsonlGroups } from './jsonl-reader.js';
import { parseMealRecord, type RecordSource } from './meal-record.js';
import { isLineError, type LineError, type RawItem } from './raw-record.js';

export interface ImportedMeal {
  readonly line: number;
  readonly meal: MealSave;
}

/** One step of a streamed import file, in line order: a checked meal, or a fault. */
export type MealFileItem = ImportedMeal | LineError;

/** How a file's cells are read: strings per cell for CSV, JSON values for JSON Lines. */
export function sourceOf(format: MealFileFormat): RecordSource {
  return format === 'csv' ? 'csv' : 'json';
}

/**
 * A file's raw records, a piece's together (csv-reader.ts readCsvGroups, jsonl-reader.ts
 * readJsonlGroups); `required`: CSV columns beside the Meal fields the file must have.
 */
export function readRawGroups(
  pieces: AsyncIterable<string>,
  format: MealFileFormat,
  required: readonly string[] = [],
): AsyncIterable<readonly RawItem[]> {
  return format === 'csv' ? readCsvGroups(pieces, required) : readJsonlGroups(pieces);
}

/** A record checked, or the fault of its line. */
function checkItem(item: RawItem, source: RecordSource): MealFileItem {
  if (isLineError(item)) return item;
  const result = parseMealRecord(item.fields, source);
  return result.ok
    ? { line: item.line, meal: result.meal }
    : { line: item.line, message: result.message, field: result.field };
}

/**
 * The fault of a record without an id where the caller must name every meal (the host API's
 * imports: the app's back end knows its meals' ids); undefined when it has one.
 */
export function missingIdFault(line: number, fields: Readonly<Record<string, unknown>>): LineError | undefined {
  const { id } = fields;
  return id === undefined || id === null || id === '' ? { line, message: 'id is required.', field: 'id' } : undefined;
}

export function isImportedMeal(item: MealFileItem): item is ImportedMeal {
  return 'meal' in item;
}

/**
 * Reads and checks an import file as its text comes, one record at a time, in line order
 * (docs/cli.md#memory-and-locking: an import's memory does not grow with the file). Every record is
 * checked; the caller decides what a fault stops.
 */
export async function* readMealFile(
  pieces: AsyncIterable<string>,
  format: MealFileFormat,
): AsyncGenerator<MealFileItem> {
  const source = sourceOf(format);
  for await (const group of readRawGroups(pieces, format)) for (const item of group) yield checkItem(item, source);
}

/** The one-line report of a bad file: its first fault, and how many more bad records follow it. */
export function describeFirstFault(first: LineError, more: number): string {
  const others = more === 0 ? '' : ` (and ${more} more bad record${more === 1 ? '' : 's'})`;
  // One sentence: the fault's own full stop goes after the count of the others.
  return `Line ${first.line}: ${first.message.replace(/\.$/, '')}${others}.`;
}
