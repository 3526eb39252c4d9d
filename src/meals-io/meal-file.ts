import type { MealContent } from '../domain/meal.js';
import { readCsv } from './csv-reader.js';
import type { MealFileFormat } from './file-format.js';
import { readJsonl } from './jsonl-reader.js';
import { parseMealRecord } from './meal-record.js';
import type { LineError } from './raw-record.js';

export interface ImportedMeal {
  readonly line: number;
  readonly meal: MealContent;
}

export type MealFileResult =
  | { readonly ok: true; readonly meals: readonly ImportedMeal[] }
  | { readonly ok: false; readonly errors: readonly LineError[] };

/**
 * Reads and checks a whole import file. Every record is checked before anything is written,
 * because an import is all or nothing (CONTRACT.md section 7): one bad record, and the result
 * is the list of every fault, in line order.
 */
export function parseMealFile(text: string, format: MealFileFormat): MealFileResult {
  const { records, errors } = format === 'csv' ? readCsv(text) : readJsonl(text);
  const source = format === 'csv' ? 'csv' : 'json';
  const faults = [...errors];
  const meals: ImportedMeal[] = [];
  for (const record of records) {
    const result = parseMealRecord(record.fields, source);
    if (result.ok) meals.push({ line: record.line, meal: result.meal });
    else faults.push({ line: record.line, message: result.message });
  }
  if (faults.length > 0) return { ok: false, errors: faults.sort((a, b) => a.line - b.line) };
  return { ok: true, meals };
}

/** The one-line report of a bad file: its first fault, and how many more there are. */
export function describeFaults(errors: readonly LineError[]): string {
  const [first, ...rest] = errors;
  if (first === undefined) return 'no faults';
  const more = rest.length === 0 ? '' : ` (and ${rest.length} more bad record${rest.length === 1 ? '' : 's'})`;
  return `line ${first.line}: ${first.message}${more}`;
}
