import type { MealContent } from '../domain/meal.js';
import { readCsv, readCsvStream } from './csv-reader.js';
import type { MealFileFormat } from './file-format.js';
import { readJsonl, readJsonlStream } from './jsonl-reader.js';
import { parseMealRecord, type RecordSource } from './meal-record.js';
import { isLineError, type LineError, type RawItem } from './raw-record.js';

export interface ImportedMeal {
  readonly line: number;
  readonly meal: MealContent;
}

export type MealFileResult =
  | { readonly ok: true; readonly meals: readonly ImportedMeal[] }
  | { readonly ok: false; readonly errors: readonly LineError[] };

/** One step of a streamed import file, in line order: a checked meal, or a fault. */
export type MealFileItem = ImportedMeal | LineError;

function sourceOf(format: MealFileFormat): RecordSource {
  return format === 'csv' ? 'csv' : 'json';
}

/** A record checked, or the fault of its line: the one check of both the whole and the streamed reads. */
function checkItem(item: RawItem, source: RecordSource): MealFileItem {
  if (isLineError(item)) return item;
  const result = parseMealRecord(item.fields, source);
  return result.ok ? { line: item.line, meal: result.meal } : { line: item.line, message: result.message };
}

export function isImportedMeal(item: MealFileItem): item is ImportedMeal {
  return 'meal' in item;
}

/**
 * Reads and checks an import file as its text comes, one record at a time, in line order
 * (issue 17, item 7: an import's memory does not grow with the file). Every record is
 * checked; the caller decides what a fault stops.
 */
export async function* readMealFile(
  pieces: AsyncIterable<string>,
  format: MealFileFormat,
): AsyncGenerator<MealFileItem> {
  const source = sourceOf(format);
  const items = format === 'csv' ? readCsvStream(pieces) : readJsonlStream(pieces);
  for await (const item of items) yield checkItem(item, source);
}

/**
 * Reads and checks a whole import file. Every record is checked before anything is written,
 * because an import is all or nothing (CONTRACT.md section 7): one bad record, and the result
 * is the list of every fault, in line order.
 */
export function parseMealFile(text: string, format: MealFileFormat): MealFileResult {
  const { records, errors } = format === 'csv' ? readCsv(text) : readJsonl(text);
  const source = sourceOf(format);
  const faults = [...errors];
  const meals: ImportedMeal[] = [];
  for (const record of records) {
    const item = checkItem(record, source);
    if (isImportedMeal(item)) meals.push(item);
    else faults.push(item);
  }
  if (faults.length > 0) return { ok: false, errors: faults.sort((a, b) => a.line - b.line) };
  return { ok: true, meals };
}

/** The one-line report of a bad file: its first fault, and how many more there are. */
export function describeFaults(errors: readonly LineError[]): string {
  const [first] = errors;
  if (first === undefined) return 'no faults';
  return describeFirstFault(first, errors.length - 1);
}

/** The same report when only the first fault was kept, and the others counted. */
export function describeFirstFault(first: LineError, more: number): string {
  const others = more === 0 ? '' : ` (and ${more} more bad record${more === 1 ? '' : 's'})`;
  return `line ${first.line}: ${first.message}${others}`;
}
