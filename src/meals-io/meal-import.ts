import type { MealSave } from '../domain/meal.js';
import type { UpsertResult } from '../storage/meal-writes.js';
import { describeFirstFault, isImportedMeal, type MealFileItem } from './meal-file.js';
import type { LineError } from './raw-record.js';

/**
 * Meals per batch handed to the store: memory holds one batch (and its lines), however long
 * the file; large enough that a batch's statements cost little per meal on either backend.
 */
export const IMPORT_BATCH_SIZE = 2000;

export type ImportOutcome =
  | {
      readonly ok: true;
      readonly imported: number;
      readonly created: number;
      readonly updated: number;
      readonly unchanged: number;
      /** Records whose sourceVersion was not greater than the stored one: nothing written for them. */
      readonly stale: number;
    }
  /** The one-line report of the first bad record (docs/cli.md#all-or-nothing-by-line); nothing was written. */
  | {
      readonly ok: false;
      /** `invalid`: a bad record; `foreign_id`: an id another user has. */
      readonly reason: 'invalid' | 'foreign_id';
      readonly message: string;
      /** The line at fault (undefined only when a foreign id's line is unknown), and the field when one is. */
      readonly line: number | undefined;
      readonly field: string | undefined;
    };

/** Where the store writes an import's batches in one transaction (Storage.importMeals for one user). */
export type BatchWriter = (batches: AsyncIterable<readonly MealSave[]>) => Promise<UpsertResult>;

const FOREIGN = { ok: false, reason: 'foreign_id', field: 'id' } as const;

function invalid(fault: LineError, message: string): ImportOutcome {
  return { ok: false, reason: 'invalid', message, line: fault.line, field: fault.field };
}

/** Thrown into the writer to roll its transaction back when a bad record is read. */
class BadRecord extends Error {
  constructor(readonly fault: LineError) {
    super(`Line ${fault.line}: ${fault.message}`);
  }
}

/**
 * `meals import` as the records come (docs/cli.md#memory-and-locking): valid records go to the
 * store in batches inside one transaction while the file is still being read; the first bad record
 * rolls it back, and the rest of the file is only read, to count the bad records after it. So the
 * outcome is the one of checking the whole file before writing
 * (docs/cli.md#all-or-nothing-by-line): a bad record anywhere is reported, by its line, before an
 * id of another user, and nothing of the file is written. `onRead` is told the count of records
 * read so far.
 */
export async function importMealStream(
  items: AsyncIterable<MealFileItem>,
  write: BatchWriter,
  onRead: (records: number) => void = () => undefined,
  /** Meals per batch handed to the store (default IMPORT_BATCH_SIZE). */
  batchSize: number = IMPORT_BATCH_SIZE,
): Promise<ImportOutcome> {
  const source = items[Symbol.asyncIterator]();
  let read = 0;
  const next = async () => {
    const step = await source.next();
    if (step.done !== true) onRead((read += 1));
    return step;
  };
  /**
   * The two batches the store took last, and where each starts in the file's meals: where a
   * foreign id is (a store may read a batch while it writes the one before: PostgreSQL's does).
   */
  let taken: { meals: MealSave[]; lines: number[]; start: number }[] = [];
  let imported = 0;

  async function* batches(): AsyncGenerator<readonly MealSave[]> {
    let meals: MealSave[] = [];
    let lines: number[] = [];
    const handOver = () => {
      const batch = { meals, lines, start: imported };
      taken = [...taken.slice(-1), batch];
      imported += meals.length;
      meals = [];
      lines = [];
      return batch.meals;
    };
    for (let step = await next(); step.done !== true; step = await next()) {
      const item = step.value;
      if (!isImportedMeal(item)) throw new BadRecord(item);
      meals.push(item.meal);
      lines.push(item.line);
      if (meals.length === batchSize) yield handOver();
    }
    if (meals.length > 0) yield handOver();
  }

  /** The rest of the file read through: its first bad record (unless one was found already) and how many more. */
  async function restOfFile(found: LineError | undefined): Promise<ImportOutcome | undefined> {
    let first = found;
    let more = 0;
    for (let step = await next(); step.done !== true; step = await next()) {
      if (isImportedMeal(step.value)) continue;
      if (first === undefined) first = step.value;
      else more += 1;
    }
    if (first === undefined) return undefined;
    const { line, field } = first;
    return { ok: false, reason: 'invalid', message: describeFirstFault(first, more), line, field };
  }

  try {
    let result: UpsertResult;
    try {
      result = await write(batches());
    } catch (error) {
      if (!(error instanceof BadRecord)) throw error;
      return (await restOfFile(error.fault)) ?? invalid(error.fault, error.message);
    }
    if (result.ok) {
      const { created, updated, unchanged, stale } = result;
      return { ok: true, imported, created, updated, unchanged, stale };
    }
    const laterFault = await restOfFile(undefined);
    if (laterFault !== undefined) return laterFault;
    const batch = taken.find(({ start, meals }) => result.index >= start && result.index < start + meals.length);
    const line = batch?.lines[result.index - batch.start];
    const id = batch?.meals[result.index - batch.start]?.id;
    if (line === undefined || id === undefined)
      return { ...FOREIGN, message: 'A meal id of this file belongs to another user.', line: undefined };
    return { ...FOREIGN, message: `Line ${line}: id ${JSON.stringify(id)} belongs to another user.`, line };
  } finally {
    // A failed write: the input is closed, not read to its end.
    await source.return?.();
  }
}
