import path from 'node:path';

/** The two layouts `meals import` reads and `meals export` writes (docs/cli.md#formats). */
export const MEAL_FILE_FORMATS = ['jsonl', 'csv'] as const;
export type MealFileFormat = (typeof MEAL_FILE_FORMATS)[number];

const FORMAT_BY_EXTENSION: Readonly<Record<string, MealFileFormat>> = {
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  // A .json file of meals is taken as JSON Lines: one object per line is also what most tools write.
  '.json': 'jsonl',
  '.csv': 'csv',
};

export function isMealFileFormat(value: unknown): value is MealFileFormat {
  return typeof value === 'string' && (MEAL_FILE_FORMATS as readonly string[]).includes(value);
}

/** The format a file name's extension (any case) names, or undefined. */
export function formatFromExtension(file: string): MealFileFormat | undefined {
  return FORMAT_BY_EXTENSION[path.extname(file).toLowerCase()];
}
