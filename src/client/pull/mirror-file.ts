import { parseInstant } from '../../domain/instant.js';
import type { Meal as StoredMeal } from '../../domain/meal.js';
import { writeFileAtomically } from '../../meals-io/atomic-file.js';
import { readCsv } from '../../meals-io/csv-reader.js';
import type { MealFileFormat } from '../../meals-io/file-format.js';
import { readJsonl } from '../../meals-io/jsonl-reader.js';
import { writeMealExport } from '../../meals-io/meal-export.js';
import { parseMealRecord } from '../../meals-io/meal-record.js';
import { readTextIfExists } from '../../meals-io/read-input.js';

/** Why a copy on disk cannot be read back. */
export class MirrorFileError extends Error {}

/**
 * Writes the copy in exactly the layout of `meals export` (CSV with CRLF, or JSON Lines), and
 * atomically: a reader, or a crash, sees the previous file or the new one, never a part.
 */
export async function writeMirrorFile(
  file: string,
  format: MealFileFormat,
  meals: Iterable<StoredMeal>,
): Promise<number> {
  async function* all() {
    yield* meals;
  }
  return writeFileAtomically(file, (sink) => writeMealExport(all(), format, sink));
}

/** Reads back a copy written by writeMirrorFile; undefined when the file does not exist. */
export async function readMirrorFile(file: string, format: MealFileFormat): Promise<StoredMeal[] | undefined> {
  const text = await readTextIfExists(file);
  if (text === undefined) return undefined;
  const { records, errors } = format === 'csv' ? readCsv(text) : readJsonl(text);
  const first = errors[0];
  if (first !== undefined) throw new MirrorFileError(`line ${first.line}: ${first.message}`);
  return records.map(({ line, fields }) => {
    const { modifiedAt, ...content } = fields;
    const result = parseMealRecord(content, format === 'csv' ? 'csv' : 'json');
    const changedAt = typeof modifiedAt === 'string' ? parseInstant(modifiedAt) : undefined;
    if (!result.ok) throw new MirrorFileError(`line ${line}: ${result.message}`);
    if (changedAt === undefined) throw new MirrorFileError(`line ${line}: modifiedAt is missing or not a date-time`);
    return { ...result.meal, modifiedAt: changedAt };
  });
}
