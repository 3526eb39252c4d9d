import type { UpsertResult, UserMealSave } from '../storage/meal-writes.js';
import { isUserImportedMeal, type UserImportedMeal, type UserMealFileItem } from './users-meal-file.js';

/**
 * Records per batch of the import of every user's history, at least: a batch ends at the first
 * change of user past it, so that it holds whole users (a user whose records are together in
 * the file is committed at once, never half). Large enough that a batch's statements and its
 * commit cost little per meal; small enough that a failure loses seconds, not minutes, and that
 * the batches held at once (two written, the next read) keep the process's memory flat: the
 * peak grows with the records in flight. On 1 M meals into PostgreSQL, two written at once,
 * batches of 5 000 peaked at 225-228 MiB, of 3 000 at 189-197 MiB in the same time, of 2 000 at
 * 164-166 MiB and 14 % slower (bench/RESULTS.md, "Two batches at once").
 */
export const USERS_BATCH_RECORDS = 3_000;
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
   * batch is written (the batch after it, if it was being written beside it, may be), and the
   * same command run again after the fix goes through them as unchanged.
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
 * Batches being written at once, at most: on PostgreSQL the second goes in on another
 * connection while the first's statement runs, so that the server's work on two batches and
 * the reading of the next share the machine's cores (bench/RESULTS.md, "Two batches at once").
 * On SQLite a batch is written whole in its turn on the connection, right after it is handed
 * over, so one is never waiting for another.
 */
export const USERS_BATCHES_AT_ONCE = 2;

/** What importUsersStream tells, and how it cuts and names the records. */
export interface UsersImportOptions {
  /** Told after every batch committed, in file order. */
  readonly onProgress?: (progress: UsersImportProgress) => void;
  /** Records per batch, at least (USERS_BATCH_RECORDS). */
  readonly batchRecords?: number;
  /** How a record is named in a message: by its line in a file, by its index for `meal-export/host`. */
  readonly recordWord?: string;
}

/** A batch handed to the writer and not yet told: its records and its answer. */
class Flight {
  /** True once the answer has come (or the write failed). */
  settled = false;
  #users: ReadonlySet<string> | undefined;
  #ids: ReadonlySet<string> | undefined;

  constructor(
    readonly records: readonly UserImportedMeal[],
    readonly answer: Promise<UpsertResult>,
  ) {
    // Also handles a failed write here; its error is thrown when the batch is told.
    answer.then(
      () => (this.settled = true),
      () => (this.settled = true),
    );
  }

  /**
   * True when `records` name a user or an id that this batch names. Two such batches are never
   * written at once: the later would wait in PostgreSQL for the earlier's lock or row while the
   * earlier waits for nothing of it, and of two records of one id the later must meet the
   * earlier committed, to be the foreign one. The sets are made only when a batch is written
   * beside this one.
   */
  meets(records: readonly UserImportedMeal[]): boolean {
    const users = (this.#users ??= new Set(this.records.map((record) => record.userId)));
    const ids = (this.#ids ??= new Set(this.records.map((record) => record.meal.id)));
    return records.some(({ userId, meal }) => users.has(userId) || ids.has(meal.id));
  }
}

/**
 * The import of every user's history as the records come (docs/operations.md#bringing-in-the-apps-history):
 * batches of whole users, each committed in a transaction of its own while the next is read, up
 * to USERS_BATCHES_AT_ONCE written at once when they share no user and no id, so that memory
 * holds a few batches whatever the file's size. Batches are counted, told and taken as the
 * resumption point in file order, whatever order they commit in.
 */
export async function importUsersStream(
  items: AsyncIterable<UserMealFileItem>,
  write: UsersBatchWriter,
  { onProgress = () => undefined, batchRecords = USERS_BATCH_RECORDS, recordWord = 'Line' }: UsersImportOptions = {},
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
  /** The batches being written, oldest first. */
  const flights: Flight[] = [];

  const stopped = (reason: 'invalid' | 'foreign_id', at: number, message: string, field: string | undefined) =>
    ({ ok: false, reason, message, line: at, field, committed, committedLine }) as const;
  /** Waits for every batch in flight to end, none of them told. */
  const drain = () => Promise.allSettled(flights.splice(0).map((flight) => flight.answer));

  /** Tells the oldest batch in flight: adds its counts, or answers its fault (an id another user has). */
  async function tell(flight: Flight): Promise<UsersImportOutcome | undefined> {
    const { records } = flight;
    const result = await flight.answer;
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

  /**
   * Tells batches in flight, oldest first, until `enough` says there are few enough. After a
   * fault or a write's error the later ones are waited for, not told (one already sent may
   * commit: run again, its records are unchanged), so that nothing is written once the run
   * has answered.
   */
  async function land(enough: () => boolean): Promise<UsersImportOutcome | undefined> {
    try {
      for (let flight = flights.shift(); flight !== undefined; flight = enough() ? undefined : flights.shift()) {
        const fault = await tell(flight);
        if (fault !== undefined) {
          await drain();
          return fault;
        }
      }
      return undefined;
    } catch (error) {
      await drain();
      throw error;
    }
  }

  /**
   * Hands the batch over once the batches already answered are told, and there is room and no
   * batch in flight shares a user or an id with it.
   */
  async function handOver(): Promise<UsersImportOutcome | undefined> {
    const records = batch;
    batch = [];
    const ready = () =>
      flights[0]?.settled !== true &&
      flights.length < USERS_BATCHES_AT_ONCE &&
      !flights.some((flight) => flight.meets(records));
    if (!ready()) {
      const fault = await land(ready);
      if (fault !== undefined) return fault;
    }
    flights.push(new Flight(records, write(records)));
    return undefined;
  }

  try {
    for await (const item of items) {
      read += 1;
      line = item.line;
      if (!isUserImportedMeal(item)) {
        // The batches before are written first: a fault of theirs, earlier in the file, is the one to tell.
        const fault = await land(() => flights.length === 0);
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
    // The input failed (a read error), or a write did (thrown by land, which has waited for the
    // others already): the batches being written finish first, so that nothing commits after
    // the error is told.
    await drain();
    throw error;
  }
  const fault = await land(() => flights.length === 0);
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
