import type { TransactionSql } from 'postgres';
import { MEAL_JSON_END } from '../../domain/meal-json.js';
import { ForeignMeal, type WriteCounts } from '../foreign-meal.js';
import {
  ARRAY_BATCH_STATEMENT,
  type BatchStatementRow,
  CONTENT_SEPARATOR,
  FUNCTION_BATCH_STATEMENT,
} from './postgres-batch-statement.js';
import { batchCommitInputs } from './postgres-commit.js';

const PREPARED = { prepare: true } as const;
/** Records per statement: the arrays of one statement stay a few megabytes. */
const RECORDS_PER_STATEMENT = 5000;
/**
 * Statements of up to this many records call the statement's function, planned once per
 * connection; larger ones send its text (postgres-batch-statement.ts SAVE_BATCH_FUNCTION_SQL
 * says why).
 */
const SMALL_BATCH_RECORDS = 16;

/** One save of a batch, as the batch statement takes it: the meal's encodeMealContent. */
export interface BatchRecord {
  readonly userId: string;
  readonly id: string;
  readonly content: string;
  readonly sourceVersion: number | null;
}

/** Counts that a write adds to as its batches go. */
export type CountsSoFar = { -readonly [K in keyof WriteCounts]: WriteCounts[K] };

export const noCounts = (): CountsSoFar => ({ created: 0, updated: 0, unchanged: 0, stale: 0 });

/**
 * Where the records are cut into statements: before a record whose id an earlier record of the
 * same statement has (the batch statement takes distinct ids: the second meets what the first
 * wrote, in the table), and every RECORDS_PER_STATEMENT records. Answers each statement's end.
 */
function statementEnds(records: readonly Pick<BatchRecord, 'id'>[]): number[] {
  const ends: number[] = [];
  let ids = new Set<string>();
  records.forEach((record, index) => {
    if (ids.has(record.id) || ids.size >= RECORDS_PER_STATEMENT) {
      ends.push(index);
      ids = new Set();
    }
    ids.add(record.id);
  });
  if (records.length > 0) ends.push(records.length);
  return ends;
}

/** Adds a statement's answer to `counts`; a foreign id, or one taken meanwhile, throws ForeignMeal. */
function countStatement(row: BatchStatementRow | undefined, counts: CountsSoFar): void {
  if (row === undefined) throw new Error('the batch statement answered no row');
  const foreign = [row.foreign_ord, row.taken_ord].filter((ord): ord is number => ord !== null);
  if (foreign.length > 0) throw new ForeignMeal(Math.min(...foreign));
  counts.created += row.created;
  counts.updated += row.updated;
  counts.unchanged += row.unchanged;
  counts.stale += row.stale;
}

/**
 * Writes `records` by the batch statement (postgres-batch-statement.ts), inside a transaction
 * that holds the clock lock of every user they name (postgres-clock-lock.ts). `first` is the
 * first record's position in the whole write, so a foreign id's index counts from the write's
 * start.
 */
export async function writeBatchRecords(
  tx: TransactionSql,
  records: readonly BatchRecord[],
  first: number,
  now: number,
  counts: CountsSoFar,
): Promise<void> {
  // Every door refuses control characters in ids (domain/meal-id.ts, domain/user-id.ts): one
  // here would shift every record after it to another's id, so it stops the write.
  if (records.some(({ id, userId }) => id.includes(CONTENT_SEPARATOR) || userId.includes(CONTENT_SEPARATOR))) {
    throw new Error('a meal id or user id holds a control character');
  }
  let start = 0;
  for (const end of statementEnds(records)) {
    const part = records.slice(start, end);
    const users = new Set(part.map((record) => record.userId)).size;
    const [row] = await tx.unsafe<BatchStatementRow[]>(
      part.length <= SMALL_BATCH_RECORDS ? FUNCTION_BATCH_STATEMENT : ARRAY_BATCH_STATEMENT,
      [
        now,
        MEAL_JSON_END,
        ...batchCommitInputs(users),
        first + start,
        part.map((record) => record.userId).join(CONTENT_SEPARATOR),
        part.map((record) => record.id).join(CONTENT_SEPARATOR),
        part.map((record) => record.content).join(CONTENT_SEPARATOR),
        part.map((record) => record.sourceVersion),
      ],
      PREPARED,
    );
    countStatement(row, counts);
    start = end;
  }
}
