import type { Database } from 'better-sqlite3';
import { nextModifiedAt } from '../../domain/change-clock.js';
import type { MealContent } from '../../domain/meal.js';
import { DigestChange } from '../../domain/meals-digest.js';
import { encodeMealAt, encodeMealContent, encodeTombstone, isStoredMeal } from '../../domain/meal-json.js';
import type { DeleteResult, MealWrites, UpsertResult } from '../meal-writes.js';
import { withFirstBatchRead } from '../first-batch.js';
import { ForeignMeal, foreignMealResult, writeAnswer } from '../foreign-meal.js';
import { createSqliteAppender, isConstraintFailure } from './sqlite-append.js';
import type { SqliteCommit } from './sqlite-commit.js';
import type { Implementation } from '../guarded-concerns.js';

interface ExistingMeal {
  readonly user_id: string;
  readonly modified_at: number;
  readonly deleted: number;
  readonly body: string;
}

/** MealWrites on SQLite: every statement prepared once, every change ended by `commit`. */
export function createSqliteMealWrites(db: Database, commit: SqliteCommit): Implementation<MealWrites> {
  const selectById = db.prepare<[string], ExistingMeal>(
    'SELECT user_id, modified_at, deleted, body FROM meals WHERE id = ?',
  );
  const selectClock = db
    .prepare<[string], number>('SELECT last_modified_at FROM user_clocks WHERE user_id = ?')
    .pluck();
  const removeRow = db.prepare('DELETE FROM meals WHERE user_id = ? AND modified_at = ? AND id = ?');
  const insertRow = db.prepare('INSERT INTO meals (user_id, modified_at, id, deleted, body) VALUES (?, ?, ?, ?, ?)');
  const pruneBefore = db.prepare('DELETE FROM meals WHERE deleted = 1 AND modified_at < ?');
  // Each user's newest tombstone about to be pruned (max() makes SQLite take `id` from its
  // row; modifiedAt is unique per user), moving the watermark forward only. INDEXED BY: left
  // to itself SQLite walks the whole table in user order for the GROUP BY (a full scan at
  // start and hourly: 0.25 s, every page of a 1.1 M-meal database read) instead of the index.
  const markPruned = db.prepare(`UPDATE user_clocks AS clock
    SET pruned_modified_at = pruned.modified_at, pruned_id = pruned.id
    FROM (SELECT user_id, max(modified_at) AS modified_at, id FROM meals INDEXED BY meals_tombstones
          WHERE deleted = 1 AND modified_at < ? GROUP BY user_id) AS pruned
    WHERE clock.user_id = pruned.user_id
      AND (clock.pruned_modified_at IS NULL
           OR (pruned.modified_at, pruned.id) > (clock.pruned_modified_at, clock.pruned_id))`);
  const prune = db.transaction((before: number): number => {
    markPruned.run(before);
    return pruneBefore.run(before).changes;
  });

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
  }

  function startRun(userId: string, now: number): WriteRun {
    const clock = selectClock.get(userId);
    const run = {
      userId,
      now,
      clock,
      first: undefined,
      taken: 0,
      appending: clock === undefined,
      digest: new DigestChange(),
    };
    return { ...run, created: 0, updated: 0, unchanged: 0 };
  }

  /**
   * A user's first write: every meal is new, so none is looked up. Inside the run's
   * transaction this is a savepoint (better-sqlite3 nests transactions so): a duplicate id
   * (another user's, or one repeated in the input) rolls back this batch alone, which the
   * caller then writes by looking each id up.
   */
  const appendBatch = db.transaction((run: WriteRun, meals: readonly MealContent[]) => {
    const first = nextModifiedAt(run.clock, run.now);
    run.clock = appendNewMeals(run.userId, meals, first);
    // Past the append: a duplicate id rolled this batch back before its terms were counted.
    meals.forEach((meal, index) => run.digest.add(meal.id, first + index));
    run.first ??= first;
    run.created += meals.length;
  });

  function lookUpBatch(run: WriteRun, meals: readonly MealContent[]): void {
    const { userId, now } = run;
    meals.forEach((meal, index) => {
      // Meals are written one after the other, so an id repeated in the input finds the
      // version the earlier record wrote.
      const existing = selectById.get(meal.id);
      if (existing !== undefined && existing.user_id !== userId) throw new ForeignMeal(run.taken + index);
      const content = encodeMealContent(meal);
      // Equal to the live meal: no change, so no write and no clock step.
      if (existing?.deleted === 0 && isStoredMeal(existing.body, content)) {
        run.unchanged += 1;
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
      insertRow.run(userId, run.clock, meal.id, 0, encodeMealAt(content, run.clock));
    });
  }

  /** One batch of a write, inside the run's transaction: upsertMeals' only batch, or one of an import's. */
  function writeBatch(run: WriteRun, meals: readonly MealContent[]): void {
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
  function finishRun(run: WriteRun) {
    if (run.first !== undefined && run.clock !== undefined)
      commit.commitChange(run.userId, run.first, run.clock, run.now, run.digest);
    return { created: run.created, updated: run.updated, unchanged: run.unchanged };
  }

  const upsert = db.transaction((userId: string, meals: readonly MealContent[], now: number) => {
    const run = startRun(userId, now);
    writeBatch(run, meals);
    return finishRun(run);
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
  async function importBatches(userId: string, batches: AsyncIterable<readonly MealContent[]>, now: number) {
    // No memory map while importing: every page the import touched through the map stayed in
    // the process's resident set (docs/cli.md#memory-and-locking).
    const ready = await withFirstBatchRead(batches);
    const mapped = Number(db.pragma('mmap_size', { simple: true }));
    try {
      db.pragma('mmap_size = 0');
      db.exec('BEGIN IMMEDIATE');
      const run = startRun(userId, now);
      for await (const meals of ready) writeBatch(run, meals);
      const counts = finishRun(run);
      db.exec('COMMIT');
      return counts;
    } finally {
      if (db.inTransaction) db.exec('ROLLBACK');
      db.pragma(`mmap_size = ${mapped}`);
    }
  }

  const remove = db.transaction((userId: string, mealId: string, now: number): DeleteResult => {
    const existing = selectById.get(mealId);
    if (existing === undefined || existing.user_id !== userId) return 'not_found';
    if (existing.deleted !== 0) return 'already_deleted';
    const modifiedAt = nextModifiedAt(selectClock.get(userId), now);
    removeRow.run(userId, existing.modified_at, mealId);
    insertRow.run(userId, modifiedAt, mealId, 1, encodeTombstone(mealId, modifiedAt));
    const digest = new DigestChange();
    digest.remove(mealId, existing.modified_at);
    commit.commitChange(userId, modifiedAt, modifiedAt, now, digest);
    return 'deleted';
  });

  return {
    upsertMeals(userId: string, meals: readonly MealContent[], now: number): UpsertResult {
      try {
        return { ok: true, ...upsert.immediate(userId, meals, now) };
      } catch (error) {
        return foreignMealResult(error);
      }
    },

    importMeals: (userId: string, batches: AsyncIterable<readonly MealContent[]>, now: number): Promise<UpsertResult> =>
      writeAnswer(importBatches(userId, batches, now)),

    deleteMeal(userId: string, mealId: string, now: number): DeleteResult {
      return remove.immediate(userId, mealId, now);
    },

    pruneTombstones(before: number): number {
      return prune.immediate(before);
    },
  };
}
