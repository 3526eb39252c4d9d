import type { Sql, TransactionSql } from 'postgres';
import { nextModifiedAt } from '../../domain/change-clock.js';
import type { MealSave } from '../../domain/meal.js';
import { DigestChange, type MealsDigest } from '../../domain/meals-digest.js';
import { encodeMealAt, encodeMealContent } from '../../domain/meal-json.js';
import { withFirstBatchRead } from '../first-batch.js';
import { ForeignMeal, type WriteCounts, writeAnswer } from '../foreign-meal.js';
import type { DeleteResult, MealWrites, SaveResult, UpsertResult } from '../meal-writes.js';
import { type MetMeal, stepOfSave } from '../save-step.js';
import { lockClock } from './postgres-clock-lock.js';
import { commitChange } from './postgres-commit.js';
import { isUniqueViolation } from './postgres-errors.js';
import { deleteMealOnce } from './postgres-meal-delete.js';
import { saveMealOnce } from './postgres-meal-save.js';
import { pruneTombstones } from './postgres-tombstone-prune.js';

/** Named prepared statements: parsed and planned once per connection. */
const PREPARED = { prepare: true } as const;
/** Rows per statement when a write sends arrays (ids to look up, rows to insert). */
const ROWS_PER_STATEMENT = 5000;
/** A unique-id race with another user's concurrent write: the transaction runs again. */
const MAX_WRITE_ATTEMPTS = 3;

interface ExistingMeal {
  readonly user_id: string;
  readonly modified_at: number;
  readonly id: string;
  readonly deleted: boolean;
  readonly body: string;
  readonly source_version: number | null;
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += ROWS_PER_STATEMENT) out.push(items.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}

/** Runs a write transaction again when another user's concurrent write took an id first. */
async function withRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= MAX_WRITE_ATTEMPTS || !isUniqueViolation(error)) throw error;
    }
  }
}

/** MealWrites on PostgreSQL (the same behaviour as sqlite/sqlite-meal-writes.ts). */
export function createPostgresMealWrites(sql: Sql): MealWrites {
  /** Where a write stands, batch after batch, inside its transaction (holding the user's clock lock). */
  interface WriteRun {
    readonly tx: TransactionSql;
    readonly userId: string;
    readonly now: number;
    clock: number | undefined;
    /** The modifiedAt of the first change, for the webhook events. */
    first: number | undefined;
    /** Meals taken so far: where the next batch starts in the input. */
    taken: number;
    /** The user's digest when the run took the lock, and what the run did to it so far. */
    readonly digestBefore: MealsDigest | undefined;
    readonly digest: DigestChange;
    created: number;
    updated: number;
    unchanged: number;
    stale: number;
  }

  async function startRun(tx: TransactionSql, userId: string, now: number): Promise<WriteRun> {
    const { clock, digest } = await lockClock(tx, userId);
    const counts = { created: 0, updated: 0, unchanged: 0, stale: 0 };
    return {
      tx,
      userId,
      now,
      clock,
      first: undefined,
      taken: 0,
      digestBefore: digest,
      digest: new DigestChange(),
      ...counts,
    };
  }

  /**
   * The id of the first meal in `ids` that another user holds, after an insert that skipped
   * some: another user's import took it between the look-up and the insert. Undefined if none.
   */
  async function takenMeanwhile(run: WriteRun, ids: readonly string[]): Promise<string | undefined> {
    const rows = await run.tx.unsafe<{ id: string }[]>(
      'SELECT id FROM meals WHERE id = ANY($1::text[]) AND user_id <> $2',
      [ids, run.userId],
      PREPARED,
    );
    const foreign = new Set(rows.map((row) => row.id));
    return ids.find((id) => foreign.has(id));
  }

  /**
   * One batch of a write: upsertMeals' only batch, or one of an import's. Its ids are looked
   * up together (under the clock lock: their content and sourceVersion hold until commit), so
   * an id repeated in the batch meets what the earlier record left here, and one repeated
   * across batches meets it in the table (written by the earlier batch).
   */
  async function writeBatch(run: WriteRun, meals: readonly MealSave[]): Promise<void> {
    const { tx, userId, now } = run;
    /** Each of the user's meals named in the batch as the next record meets it. */
    const met = new Map<string, MetMeal>();
    const foreign = new Set<string>();
    for (const ids of chunks([...new Set(meals.map((meal) => meal.id))])) {
      const rows = await tx.unsafe<ExistingMeal[]>(
        'SELECT user_id, modified_at, id, deleted, body, source_version FROM meals WHERE id = ANY($1::text[])',
        [ids],
        PREPARED,
      );
      for (const row of rows) {
        if (row.user_id !== userId) foreign.add(row.id);
        else {
          const { modified_at: modifiedAt, deleted, body, source_version: sourceVersion } = row;
          met.set(row.id, { modifiedAt, deleted, body, sourceVersion });
        }
      }
    }
    const stored = new Set(met.keys());
    // Each meal in input order gets the next clock value; a repeated id is written twice,
    // the second version winning (as SQLite writes them one after the other). A stale meal,
    // or one equal to the live version it meets, is no change: it is not written, and the
    // clock does not move for it; a newer version it brings is kept alone (`recorded`).
    const written = new Map<string, MetMeal>();
    const recorded = new Map<string, number>();
    meals.forEach((meal, index) => {
      if (foreign.has(meal.id)) throw new ForeignMeal(run.taken + index);
      const before = met.get(meal.id);
      const content = encodeMealContent(meal);
      const step = stepOfSave(before, content, meal.sourceVersion);
      if (step.kind === 'stale' || step.kind === 'unchanged') {
        if (step.kind === 'stale') run.stale += 1;
        else run.unchanged += 1;
        if (step.kind === 'unchanged' && step.recordVersion !== undefined && before !== undefined) {
          const kept = { ...before, sourceVersion: step.recordVersion };
          met.set(meal.id, kept);
          if (written.has(meal.id)) written.set(meal.id, kept);
          else recorded.set(meal.id, step.recordVersion);
        }
        return;
      }
      run.clock = nextModifiedAt(run.clock, now);
      run.first ??= run.clock;
      if (step.kind === 'created') run.created += 1;
      else run.updated += 1;
      if (before !== undefined && !before.deleted) run.digest.remove(meal.id, before.modifiedAt);
      run.digest.add(meal.id, run.clock);
      const after = {
        modifiedAt: run.clock,
        deleted: false,
        body: encodeMealAt(content, run.clock),
        sourceVersion: step.sourceVersion,
      };
      met.set(meal.id, after);
      written.set(meal.id, after);
      recorded.delete(meal.id);
    });
    await writeRows(
      run,
      meals,
      [...stored].filter((id) => written.has(id)),
      written,
    );
    for (const rows of chunks([...recorded])) {
      await tx.unsafe(
        `UPDATE meals SET source_version = t.source_version
         FROM unnest($2::text[], $3::bigint[]) AS t(id, source_version)
         WHERE meals.user_id = $1 AND meals.id = t.id`,
        [userId, rows.map(([id]) => id), rows.map(([, version]) => version)],
        PREPARED,
      );
    }
    run.taken += meals.length;
  }

  /** A batch's new rows: the user's rows they replace deleted, then the rows inserted. */
  async function writeRows(
    run: WriteRun,
    meals: readonly MealSave[],
    replaced: readonly string[],
    written: ReadonlyMap<string, MetMeal>,
  ): Promise<void> {
    const { tx, userId } = run;
    for (const ids of chunks(replaced)) {
      await tx.unsafe('DELETE FROM meals WHERE user_id = $1 AND id = ANY($2::text[])', [userId, ids], PREPARED);
    }
    for (const rows of chunks([...written])) {
      const ids = rows.map(([id]) => id);
      // ON CONFLICT DO NOTHING: an id another user's import wrote since the look-up is that
      // user's now, a foreign id like any other, not a failure of the whole (unrepeatable) import.
      const inserted = await tx.unsafe(
        `INSERT INTO meals (user_id, modified_at, id, deleted, body, source_version)
         SELECT $1, modified_at, id, false, body, source_version
         FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[]) AS t(modified_at, id, body, source_version)
         ON CONFLICT DO NOTHING`,
        [
          userId,
          rows.map(([, row]) => row.modifiedAt),
          ids,
          rows.map(([, row]) => row.body),
          rows.map(([, row]) => row.sourceVersion),
        ],
        PREPARED,
      );
      if (inserted.count < rows.length) {
        const id = await takenMeanwhile(run, ids);
        if (id === undefined) throw new Error('an insert of meals skipped rows that no other user holds');
        throw new ForeignMeal(run.taken + meals.findIndex((meal) => meal.id === id));
      }
    }
  }

  /** The end of a write: the commit step, when anything changed. */
  async function finishRun(run: WriteRun) {
    const { tx, userId, first, clock, now } = run;
    if (first !== undefined && clock !== undefined) {
      await commitChange(tx, { userId, first, last: clock, now, digestBefore: run.digestBefore, digest: run.digest });
    }
    const counts: WriteCounts = {
      created: run.created,
      updated: run.updated,
      unchanged: run.unchanged,
      stale: run.stale,
    };
    return counts;
  }

  function upsert(userId: string, meals: readonly MealSave[], now: number) {
    return sql.begin(async (tx) => {
      const run = await startRun(tx, userId, now);
      await writeBatch(run, meals);
      return finishRun(run);
    });
  }

  /**
   * An import's batches in one transaction, each written before the next is taken: the await is the back-pressure that keeps one batch in memory. The user's clock
   * is locked once the first batch is read (withFirstBatchRead).
   */
  async function importBatches(userId: string, batches: AsyncIterable<readonly MealSave[]>, now: number) {
    const ready = await withFirstBatchRead(batches);
    return sql.begin(async (tx) => {
      const run = await startRun(tx, userId, now);
      for await (const meals of ready) await writeBatch(run, meals);
      return finishRun(run);
    });
  }

  return {
    upsertMeals: (userId: string, meals: readonly MealSave[], now: number): Promise<UpsertResult> =>
      writeAnswer(withRetry(() => upsert(userId, meals, now))),

    /** One statement (postgres-meal-save.ts): a batch of one without the batch's round trips. */
    saveMeal: (userId: string, meal: MealSave, now: number): Promise<SaveResult> =>
      withRetry(() => saveMealOnce(sql, userId, meal, now)),

    /** Not retried: the batches cannot be read twice; an id taken meanwhile is a foreign id (writeBatch). */
    importMeals: (userId: string, batches: AsyncIterable<readonly MealSave[]>, now: number): Promise<UpsertResult> =>
      writeAnswer(importBatches(userId, batches, now)),

    /** One statement (postgres-meal-delete.ts). */
    deleteMeal: (userId: string, mealId: string, now: number, sourceVersion?: number): Promise<DeleteResult> =>
      withRetry(() => deleteMealOnce(sql, userId, mealId, now, sourceVersion)),

    pruneTombstones: (before: number): Promise<number> => pruneTombstones(sql, before),
  };
}
