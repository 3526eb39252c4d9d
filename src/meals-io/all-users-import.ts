import type { UpsertResult, UserMealSave } from '../storage/meal-writes.js';
import { isUserImportedMeal, type UserImportedMeal, type UserMealFileItem } from './users-meal-file.js';

/**
 * Records per batch of the import of every user's history, at least: a batch ends at the first
 * change of user past it, so that it holds whole users (a user whose records are together in
 * the file is committed at once, never half). Large enough that a batch's statements and its
 * commit cost little per meal; small enough that a failure loses seconds, not minutes, and that
 * the two batches held at once (one written, the next read) keep the process's memory flat:
 * the peak grows with the records in flight: 224-227 MiB with batches of 10 000 where 5 000
 * took 188-191 MiB on 1 M meals, for 3 % of PostgreSQL's rate (bench/RESULTS.md, "The import's memory").
 */
export const USERS_BATCH_RECORDS = 5_000;
/**
 * One user's records in a batch at most, in multiples of USERS_BATCH_RECORDS: a user with more
 * is committed in pieces of that many, so that memory stays bounded whatever one user holds.
 */
const MAX_USER_MULTIPLE = 2;
/** The pieces a user of more records than this is committed in. */
export const USER_PIECE_RECORDS = USERS_BATCH_RECORDS * MAX_USER_MULTIPLE;

/** What was committed so far: the run's resumption point, told after every batch. */
export interface UsersImportProgress {
  /** Records read, and the last line read. */
  readonly read: number;
  readonly line: number;
  /** Records committed, and the line of the last of them (0: none yet). */
  readonly committed: number;
  readonly committedLine: number;
}

interface Counts {
  created: number;
  updated: number;
  unchanged: number;
  stale: number;
}

export type UsersImportOutcome =
  | ({
      readonly ok: true;
      readonly imported: number;
      readonly batches: number;
    } & Readonly<Counts>)
  /**
   * The first bad record, or the first id another user has, stops the run: the batches before
   * it stay committed (`committed` records, through line `committedLine`), nothing of its own
   * batch is written, and the same command run again after the fix goes through them as unchanged.
   */
  | {
      readonly ok: false;
      readonly reason: 'invalid' | 'foreign_id';
      readonly message: string;
      readonly line: number;
      readonly field: string | undefined;
      readonly committed: number;
      readonly committedLine: number;
    };

/** Writes one batch in a transaction of its own (MealWrites.importUsersBatch). */
export type UsersBatchWriter = (records: readonly UserMealSave[]) => Promise<UpsertResult>;

/**
 * The import of every user's history as the records come (docs/operations.md#bringing-in-the-apps-history):
 * batches of whole users, each committed on its own while the next is read, so memory holds two
 * batches whatever the file's size and PostgreSQL writes while JS parses.
 */
export async function importUsersStream(
  items: AsyncIterable<UserMealFileItem>,
  write: UsersBatchWriter,
  onProgress: (progress: UsersImportProgress) => void = () => undefined,
  batchRecords: number = USERS_BATCH_RECORDS,
  /** How a record is named in a message: by its line in a file, by its index for `meal-export/host`. */
  recordWord = 'Line',
): Promise<UsersImportOutcome> {
  const counts: Counts = { created: 0, updated: 0, unchanged: 0, stale: 0 };
  let read = 0;
  let line = 0;
  let committed = 0;
  let committedLine = 0;
  let batches = 0;
  let batch: UserImportedMeal[] = [];
  /** Where the current user's records start in the batch. */
  let userStart = 0;
  /** The batch being written, or its first fault: an id another user has. */
  let writing: Promise<UsersImportOutcome | undefined> = Promise.resolve(undefined);

  const stopped = (reason: 'invalid' | 'foreign_id', at: number, message: string, field: string | undefined) =>
    ({ ok: false, reason, message, line: at, field, committed, committedLine }) as const;

  async function commit(records: readonly UserImportedMeal[]): Promise<UsersImportOutcome | undefined> {
    const result = await write(records.map(({ userId, meal }) => ({ userId, meal })));
    if (!result.ok) {
      const record = records[result.index];
      const at = record?.line ?? 0;
      const id = JSON.stringify(record?.meal.id ?? '');
      return stopped('foreign_id', at, `${recordWord} ${at}: id ${id} belongs to another user.`, 'id');
    }
    counts.created += result.created;
    counts.updated += result.updated;
    counts.unchanged += result.unchanged;
    counts.stale += result.stale;
    committed += records.length;
    committedLine = records[records.length - 1]?.line ?? committedLine;
    batches += 1;
    onProgress({ read, line, committed, committedLine });
    return undefined;
  }

  /** Hands the batch over once the one before it is written; a fault of that one stops the run. */
  async function handOver(): Promise<UsersImportOutcome | undefined> {
    const fault = await writing;
    if (fault !== undefined) return fault;
    const records = batch;
    batch = [];
    writing = commit(records);
    // Handled here; its answer is awaited with the next batch or at the end.
    writing.catch(() => undefined);
    return undefined;
  }

  try {
    for await (const item of items) {
      read += 1;
      line = item.line;
      if (!isUserImportedMeal(item)) {
        // The batch before is written first: its fault, earlier in the file, is the one to tell.
        const fault = await writing;
        return fault ?? stopped('invalid', item.line, `${recordWord} ${item.line}: ${item.message}`, item.field);
      }
      const last = batch[batch.length - 1];
      const sameUser = last !== undefined && last.userId === item.userId;
      if (!sameUser) userStart = batch.length;
      const userFull = sameUser && batch.length - userStart >= batchRecords * MAX_USER_MULTIPLE;
      if (userFull || (!sameUser && batch.length >= batchRecords)) {
        const fault = await handOver();
        if (fault !== undefined) return fault;
        userStart = 0;
      }
      batch.push(item);
    }
    if (batch.length > 0) {
      const fault = await handOver();
      if (fault !== undefined) return fault;
    }
  } catch (error) {
    // The input failed (a read error): the batch being written finishes first, so that nothing
    // commits after the error is told.
    await writing.catch(() => undefined);
    throw error;
  }
  const fault = await writing;
  if (fault !== undefined) return fault;
  return { ok: true, imported: committed, batches, ...counts };
}

/**
 * A stopped run's message: its fault, then what the batches before it kept and how to go on
 * (the command's and the host API's words alike).
 */
export function describeUsersImportStop(
  outcome: Extract<UsersImportOutcome, { ok: false }>,
  again = 'run the same command again',
  recordWord = 'Line',
): string {
  const { message, committed, committedLine } = outcome;
  if (committed === 0) return `${message} Nothing was committed.`;
  const records = `${committed} record${committed === 1 ? '' : 's'} before it ${committed === 1 ? 'was' : 'were'}`;
  return `${message} ${records} committed (through ${recordWord.toLowerCase()} ${committedLine}): ${again} once it is fixed.`;
}
