import type { Database } from 'better-sqlite3';
import { nextModifiedAt } from '../../domain/change-clock.js';
import type { MealSave } from '../../domain/meal.js';
import { DigestChange } from '../../domain/meals-digest.js';
import { encodeMealAt, encodeMealContent } from '../../domain/meal-json.js';
import type { MealWrites, SaveResult, UpsertResult, UserMealSave } from '../meal-writes.js';
import { withFirstBatchRead } from '../first-batch.js';
import { ForeignMeal, foreignMealResult, type WriteCounts, writeAnswer } from '../foreign-meal.js';
import { saveAnswer, stepOfSave } from '../save-step.js';
import { createSqliteAppender, isConstraintFailure } from './sqlite-append.js';
import type { SqliteCommit } from './sqlite-commit.js';
import { createSqliteMealDelete } from './sqlite-meal-delete.js';
import { createSqliteTombstonePrune } from './sqlite-tombstone-prune.js';
import { createSqliteUserClock } from './sqlite-user-clock.js';
import type { Implementation } from '../guarded-concerns.js';

interface ExistingMeal {
  readonly user_id: string;
  readonly modified_at: number;
  readonly deleted: number;
  readonly body: string;
  readonly source_version: number | null;
}

/** MealWrites on SQLite: every statement prepared once, every change ended by `commit`. */
export function createSqliteMealWrites(db: Database, commit: SqliteCommit): Implementation<MealWrites> {
  const selectById = db.prepare<[string], ExistingMeal>(
    'SELECT user_id, modified_at, deleted, body, source_version FROM meals WHERE id = ?',
  );
  const userClock = createSqliteUserClock(db);
  const removeRow = db.prepare('DELETE FROM meals WHERE user_id = ? AND modified_at = ? AND id = ?');
  const insertRow = db.prepare(
    'INSERT INTO meals (user_id, modified_at, id, deleted, body, source_version) VALUES (?, ?, ?, 0, ?, ?)',
  );
  const setVersion = db.prepare('UPDATE meals SET source_version = ? WHERE id = ? AND user_id = ?');
  const appendNewMeals = createSqliteAppender(db);

  /** Where a write stands, batch after batch, inside its transaction. */
  interface WriteRun {
    readonly userId: string;
    readonly now: number;
    /** The user's clock: the last modifiedAt given. */
    clock: number | undefined;
    /** The modifiedAt of the first change, for the webhook events. */
    first: number | undefined;
    /** Meals taken so far: where the next batch starts in the input. */
    taken: number;
    /** A user without a clock at the start: batches are appended without looking ids up, until one fails. */
    appending: boolean;
    /** What the run did to the user's live meals so far. */
    readonly digest: DigestChange;
    created: number;
    updated: number;
    unchanged: number;
    stale: number;
    /** The last meal's modifiedAt after its write: the new one, else the stored one (saveMeal's answer). */
    lastAt: number | undefined;
  }

  function startRun(userId: string, now: number): WriteRun {
    const { last: clock, isNew } = userClock(userId);
    const run = {
      userId,
      now,
      clock,
      first: undefined,
      taken: 0,
      appending: isNew,
      digest: new DigestChange(),
    };
    return { ...run, created: 0, updated: 0, unchanged: 0, stale: 0, lastAt: undefined };
  }

  /**
   * A user's first write: every meal is new, so none is looked up. Inside the run's
   * transaction this is a savepoint (better-sqlite3 nests transactions so): a duplicate id
   * (another user's, or one repeated in the input) rolls back this batch alone, which the
   * caller then writes by looking each id up. A new user has no stored sourceVersion, so no
   * meal here can be stale; an id repeated in the input (whose later record meets the earlier
   * one's version) takes the look-up path like any duplicate.
   */
  const appendBatch = db.transaction((run: WriteRun, meals: readonly MealSave[]) => {
    const first = nextModifiedAt(run.clock, run.now);
    run.clock = appendNewMeals(run.userId, meals, first);
    // Past the append: a duplicate id rolled this batch back before its terms were counted.
    meals.forEach((meal, index) => run.digest.add(meal.id, first + index));
    run.first ??= first;
    run.created += meals.length;
    run.lastAt = run.clock;
  });

  function lookUpBatch(run: WriteRun, meals: readonly MealSave[]): void {
    const { userId, now } = run;
    meals.forEach((meal, index) => {
      // Meals are written one after the other, so an id repeated in the input finds the
      // content and the sourceVersion the earlier record wrote.
      const existing = selectById.get(meal.id);
      if (existing !== undefined && existing.user_id !== userId) throw new ForeignMeal(run.taken + index);
      const content = encodeMealContent(meal);
      const met =
        existing === undefined
          ? undefined
          : {
              modifiedAt: existing.modified_at,
              deleted: existing.deleted !== 0,
              body: existing.body,
              sourceVersion: existing.source_version,
            };
      const step = stepOfSave(met, content, meal.sourceVersion);
      // Stale, or equal to the live meal: no change, so no clock step (a newer version alone is kept).
      if (step.kind === 'stale' || step.kind === 'unchanged') {
        if (step.kind === 'stale') run.stale += 1;
        else {
          run.unchanged += 1;
          if (step.recordVersion !== undefined) setVersion.run(step.recordVersion, meal.id, userId);
        }
        run.lastAt = existing?.modified_at;
        return;
      }
      run.clock = nextModifiedAt(run.clock, now);
      run.first ??= run.clock;
      if (existing === undefined) run.created += 1;
      else {
        run.updated += 1;
        removeRow.run(userId, existing.modified_at, meal.id);
        if (existing.deleted === 0) run.digest.remove(meal.id, existing.modified_at);
      }
      run.digest.add(meal.id, run.clock);
      insertRow.run(userId, run.clock, meal.id, encodeMealAt(content, run.clock), step.sourceVersion);
      run.lastAt = run.clock;
    });
  }

  /** One batch of a write, inside the run's transaction: upsertMeals' only batch, or one of an import's. */
  function writeBatch(run: WriteRun, meals: readonly MealSave[]): void {
    if (run.appending && meals.length > 0) {
      try {
        appendBatch(run, meals);
        run.taken += meals.length;
        return;
      } catch (error) {
        if (!isConstraintFailure(error)) throw error;
        run.appending = false;
      }
    }
    lookUpBatch(run, meals);
    run.taken += meals.length;
  }

  /** The end of a write: the commit step, when anything changed. */
  function finishRun(run: WriteRun): WriteCounts {
    if (run.first !== undefined && run.clock !== undefined)
      commit.commitChange(run.userId, run.first, run.clock, run.now, run.digest);
    return { created: run.created, updated: run.updated, unchanged: run.unchanged, stale: run.stale };
  }

  const upsert = db.transaction((userId: string, meals: readonly MealSave[], now: number) => {
    const run = startRun(userId, now);
    writeBatch(run, meals);
    return finishRun(run);
  });

  const save = db.transaction((userId: string, meal: MealSave, now: number): SaveResult => {
    const run = startRun(userId, now);
    writeBatch(run, [meal]);
    return saveAnswer(finishRun(run), run.lastAt);
  });

  /**
   * An import's batches in one transaction across awaits, opened by hand: better-sqlite3's cannot span
   * an await, and reading stdin inside one would stop the progress line. Safe only because nothing else
   * uses this connection meanwhile: the caller is `meals import`, a process with one handle awaiting
   * only its input, and the call policy (sqlite-call-policy.ts) refuses any other call while it is open.
   * BEGIN IMMEDIATE takes the write lock once the first batch is read (withFirstBatchRead) and holds it
   * to the input's end: other processes' writers wait (busy timeout) or fail at once (serve's
   * background writes); readers, and opening a store already up to date (migrate.ts), go on.
   */
  async function importBatches(userId: string, batches: AsyncIterable<readonly MealSave[]>, now: number) {
    const ready = await withFirstBatchRead(batches);
    return withoutMemoryMap(async () => {
      try {
        db.exec('BEGIN IMMEDIATE');
        const run = startRun(userId, now);
        for await (const meals of ready) writeBatch(run, meals);
        const counts = finishRun(run);
        db.exec('COMMIT');
        return counts;
      } finally {
        if (db.inTransaction) db.exec('ROLLBACK');
      }
    });
  }

  /**
   * No memory map while importing: every page an import touched through the map stayed in the
   * process's resident set (docs/cli.md#memory-and-locking), which then grew with the store.
   */
  function withoutMemoryMap<T>(work: () => T): T {
    const mapped = Number(db.pragma('mmap_size', { simple: true }));
    db.pragma('mmap_size = 0');
    const restore = () => db.pragma(`mmap_size = ${mapped}`);
    try {
      const result = work();
      if (result instanceof Promise) return result.finally(restore) as T;
      restore();
      return result;
    } catch (error) {
      restore();
      throw error;
    }
  }

  /**
   * importUsersBatch: each run of one user's records, in input order, as that user's write
   * with its own commit step, all in one transaction; a foreign id's index counts from the
   * batch's first record.
   */
  const usersBatch = db.transaction((records: readonly UserMealSave[], now: number): WriteCounts => {
    const totals = { created: 0, updated: 0, unchanged: 0, stale: 0 };
    let start = 0;
    while (start < records.length) {
      const userId = records[start]?.userId ?? '';
      let end = start + 1;
      while (end < records.length && records[end]?.userId === userId) end += 1;
      const run = startRun(userId, now);
      run.taken = start;
      writeBatch(
        run,
        records.slice(start, end).map((record) => record.meal),
      );
      const counts = finishRun(run);
      totals.created += counts.created;
      totals.updated += counts.updated;
      totals.unchanged += counts.unchanged;
      totals.stale += counts.stale;
      start = end;
    }
    return totals;
  });

  const deleteMeal = createSqliteMealDelete(db, commit);

  return {
    upsertMeals(userId: string, meals: readonly MealSave[], now: number): UpsertResult {
      try {
        return { ok: true, ...upsert.immediate(userId, meals, now) };
      } catch (error) {
        return foreignMealResult(error);
      }
    },

    saveMeal(userId: string, meal: MealSave, now: number): SaveResult {
      try {
        return save.immediate(userId, meal, now);
      } catch (error) {
        if (error instanceof ForeignMeal) return { ok: false, reason: 'foreign_id', index: 0 };
        throw error;
      }
    },

    importMeals: (userId: string, batches: AsyncIterable<readonly MealSave[]>, now: number): Promise<UpsertResult> =>
      writeAnswer(importBatches(userId, batches, now)),

    importUsersBatch(records: readonly UserMealSave[], now: number): UpsertResult {
      try {
        return { ok: true, ...withoutMemoryMap(() => usersBatch.immediate(records, now)) };
      } catch (error) {
        return foreignMealResult(error);
      }
    },

    deleteMeal,

    pruneTombstones: createSqliteTombstonePrune(db),
  };
}
