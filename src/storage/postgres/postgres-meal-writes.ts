import type { Sql, TransactionSql } from 'postgres';
import type { MealSave } from '../../domain/meal.js';
import { encodeMealContent } from '../../domain/meal-json.js';
import { withFirstBatchRead } from '../first-batch.js';
import { writeAnswer } from '../foreign-meal.js';
import type { DeleteResult, MealWrites, SaveResult, UpsertResult, UserMealSave } from '../meal-writes.js';
import { type BatchRecord, type CountsSoFar, noCounts, writeBatchRecords } from './postgres-batch-write.js';
import { lockClocks } from './postgres-clock-lock.js';
import { isDeadlock, isUniqueViolation } from './postgres-errors.js';
import { deleteMealOnce } from './postgres-meal-delete.js';
import { saveMealOnce } from './postgres-meal-save.js';
import { pruneTombstones } from './postgres-tombstone-prune.js';

/** A unique-id race with another user's concurrent write: the transaction runs again. */
const MAX_WRITE_ATTEMPTS = 3;

/**
 * Runs a write transaction again when another user's concurrent write took an id first, or
 * (`deadlocks`: a batch of many users') when the server aborted it to break a deadlock.
 */
async function withRetry<T>(work: () => Promise<T>, deadlocks = false): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      const again = isUniqueViolation(error) || (deadlocks && isDeadlock(error));
      if (attempt >= MAX_WRITE_ATTEMPTS || !again) throw error;
    }
  }
}

const recordOf = (userId: string, meal: MealSave): BatchRecord => ({
  userId,
  id: meal.id,
  content: encodeMealContent(meal),
  sourceVersion: meal.sourceVersion ?? null,
});

/** A single save's answer as a batch's. */
function countsOfSave(result: SaveResult): UpsertResult {
  if (!result.ok) return result;
  const counts = { created: 0, updated: 0, unchanged: 0, stale: 0 };
  counts[result.outcome] = 1;
  return { ok: true, ...counts };
}

/**
 * MealWrites on PostgreSQL (the same behaviour as sqlite/sqlite-meal-writes.ts). Every write is
 * decided in SQL by one decider (postgres-functions-decision.ts): a single save or delete in
 * one function call, a batch in one statement per batch (postgres-batch-write.ts), both under
 * the user's clock lock.
 */
export function createPostgresMealWrites(sql: Sql): MealWrites {
  /** A write's batches, in one transaction that holds the user's clock lock from the first. */
  async function writeRun(
    tx: TransactionSql,
    userId: string,
    batches: AsyncIterable<readonly MealSave[]> | Iterable<readonly MealSave[]>,
    now: number,
  ) {
    // The first statement is sent behind the lock without waiting for its answer (one round trip
    // less): the server runs it once the lock is held, and takes its snapshot then.
    const locked = lockClocks(tx, [userId]);
    const counts: CountsSoFar = noCounts();
    let taken = 0;
    // A batch is read and encoded while the one before it is written: JS and PostgreSQL work
    // side by side, and no more than two batches are held.
    let writing: Promise<unknown> = locked;
    // Handled here, thrown by an await below.
    writing.catch(() => undefined);
    for await (const meals of batches) {
      const records = meals.map((meal) => recordOf(userId, meal));
      if (writing !== locked) await writing;
      writing = Promise.all([writing, writeBatchRecords(tx, records, taken, now, counts)]);
      writing.catch(() => undefined);
      taken += meals.length;
    }
    await writing;
    return counts;
  }

  /**
   * An import's batches in one transaction, each written while the next is read: the await
   * before the next is sent is the back-pressure that keeps two batches in memory at most. The
   * user's clock is locked once the first batch is read (withFirstBatchRead).
   */
  async function importBatches(userId: string, batches: AsyncIterable<readonly MealSave[]>, now: number) {
    const ready = await withFirstBatchRead(batches);
    return sql.begin((tx) => writeRun(tx, userId, ready, now));
  }

  return {
    upsertMeals: (userId: string, meals: readonly MealSave[], now: number): Promise<UpsertResult> => {
      const [only, ...others] = meals;
      // A batch of one is a single save: one statement, the same decider, a third of the time.
      if (only !== undefined && others.length === 0)
        return withRetry(() => saveMealOnce(sql, userId, only, now)).then(countsOfSave);
      return writeAnswer(withRetry(() => sql.begin((tx) => writeRun(tx, userId, [meals], now))));
    },

    /** One statement (postgres-meal-save.ts): a batch of one without the batch's round trips. */
    saveMeal: (userId: string, meal: MealSave, now: number): Promise<SaveResult> =>
      withRetry(() => saveMealOnce(sql, userId, meal, now)),

    /** Not retried: the batches cannot be read twice; an id taken meanwhile is a foreign id (the batch statement). */
    importMeals: (userId: string, batches: AsyncIterable<readonly MealSave[]>, now: number): Promise<UpsertResult> =>
      writeAnswer(importBatches(userId, batches, now)),

    /** The users' clocks locked in user id order, then the batch statement over every record. */
    importUsersBatch: (records: readonly UserMealSave[], now: number): Promise<UpsertResult> =>
      writeAnswer(
        withRetry(
          () =>
            sql.begin(async (tx) => {
              const counts = noCounts();
              const batch = records.map(({ userId, meal }) => recordOf(userId, meal));
              // The statements go out behind the locks, unanswered yet (writeRun says why).
              await Promise.all([
                lockClocks(tx, [...new Set(records.map((record) => record.userId))]),
                writeBatchRecords(tx, batch, 0, now, counts),
              ]);
              return counts;
            }),
          true,
        ),
      ),

    /** One statement (postgres-meal-delete.ts). */
    deleteMeal: (userId: string, mealId: string, now: number, sourceVersion?: number): Promise<DeleteResult> =>
      withRetry(() => deleteMealOnce(sql, userId, mealId, now, sourceVersion)),

    pruneTombstones: (before: number, piece?: number): Promise<number> => pruneTombstones(sql, before, piece),
  };
}
