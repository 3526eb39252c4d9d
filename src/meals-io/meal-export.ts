import type { Meal } from '../domain/meal.js';
import { encodeMeal } from '../domain/meal-json.js';
import { type CsvOptions, csvHeader, csvRow } from './csv-writer.js';
import type { MealFileFormat } from './file-format.js';

/** Where an export goes. `write` resolves false when the reader has gone (a closed pipe): stop. */
export interface TextSink {
  write(text: string): Promise<boolean>;
}

/** Rows are gathered into chunks of about this many characters: one write per row is slow. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Streams meals into a sink as CSV (header first) or JSON Lines (one Meal JSON per line, LF),
 * never holding more than one chunk. Returns how many meals were written. `csv` chooses the
 * CSV's form (csv-writer.ts): exact by default, for programs and `pull`.
 */
export async function writeMealExport(
  meals: AsyncIterable<Meal>,
  format: MealFileFormat,
  sink: TextSink,
  csv: CsvOptions = {},
): Promise<number> {
  let chunk = format === 'csv' ? csvHeader(csv) : '';
  let count = 0;
  for await (const meal of meals) {
    chunk += format === 'csv' ? csvRow(meal, csv) : `${encodeMeal(meal, meal.modifiedAt)}\n`;
    count += 1;
    if (chunk.length >= CHUNK_CHARS) {
      // Returning ends the loop, which closes the store's iterator too.
      if (!(await sink.write(chunk))) return count;
      chunk = '';
    }
  }
  if (chunk !== '') await sink.write(chunk);
  return count;
}
