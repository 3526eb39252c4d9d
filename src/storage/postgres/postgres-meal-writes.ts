import type { Sql, TransactionSql } from 'postgres';
import { nextModifiedAt } from '../../domain/change-clock.js';
import type { MealContent } from '../../domain/meal.js';
import { DigestChange, type MealsDigest } from '../../domain/meals-digest.js';
import { storedDigest } from '../digest-bytes.js';
import { encodeMealAt, encodeMealContent, encodeTombstone, isStoredMeal } from '../../domain/meal-json.js';
import { withFirstBatchRead } from '../first-batch.js';
import { ForeignMeal, writeAnswer } from '../foreign-meal.js';
import type { DeleteResult, MealWrites, UpsertResult } from '../meal-writes.js';
import { commitChange } from './postgres-commit.js';
import { isUniqueViolation } from './postgres-errors.js';

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
}

interface LockedClock {
  readonly clock: number | undefined;
  /** The user's live meals' digest; undefined while not computed yet (a row older than it). */
  readonly digest: MealsDigest | undefined;
}

/** Locks the user's clock row (creating it first), serialising the user's writes; what it holds. */
async function lockClock(tx: TransactionSql, userId: string): Promise<LockedClock> {
  await tx.unsafe('INSERT INTO user_clocks (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING', [userId], PREPARED);
  const [row] = await tx.unsafe<
    { last_modified_at: number | null; live_count: number | null; digest_sum: Buffer | null }[]
  >(
    'SELECT last_modified_at, live_count, digest_sum FROM user_clocks WHERE user_id = $1 FOR UPDATE',
    [userId],
    PREPARED,
  );
  return {
    clock: row?.last_modified_at ?? undefined,
    digest: storedDigest(true, row?.live_count === null ? null : Number(row?.live_count), row?.digest_sum),
  };
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
  }

  async function startRun(tx: TransactionSql, userId: string, now: number): Promise<WriteRun> {
    const { clock, digest } = await lockClock(tx, userId);
    const counts = { created: 0, updated: 0, unchanged: 0 };
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
   * up together, so an id repeated in the batch meets the earlier record's version here, and
   * one repeated across batches meets it in the table (written by the earlier batch).
   */
  async function writeBatch(run: WriteRun, meals: readonly MealContent[]): Promise<void> {
    const { tx, userId, now } = run;
    const existing = new Map<string, ExistingMeal>();
    for (const ids of chunks([...new Set(meals.map((meal) => meal.id))])) {
      const rows = await tx.unsafe<ExistingMeal[]>(
        'SELECT user_id, modified_at, id, deleted, body FROM meals WHERE id = ANY($1::text[])',
        [ids],
        PREPARED,
      );
      for (const row of rows) existing.set(row.id, row);
    }
    // Each meal in input order gets the next clock value; a repeated id is written twice,
    // the second version winning (as SQLite writes them one after the other). A meal equal
    // to the live version it meets (the stored one, or an earlier record's) is no change:
    // it is not written, and the clock does not move for it.
    const written = new Map<string, { modifiedAt: number; body: string }>();
    meals.forEach((meal, index) => {
      const row = existing.get(meal.id);
      if (row !== undefined && row.user_id !== userId) throw new ForeignMeal(run.taken + index);
      const earlier = written.get(meal.id);
      const storedLive = row === undefined || row.deleted ? undefined : row;
      const live = earlier?.body ?? storedLive?.body;
      const liveAt = earlier?.modifiedAt ?? storedLive?.modified_at;
      const content = encodeMealContent(meal);
      if (live !== undefined && isStoredMeal(live, content)) {
        run.unchanged += 1;
        return;
      }
      run.clock = nextModifiedAt(run.clock, now);
      run.first ??= run.clock;
      if (row === undefined && earlier === undefined) run.created += 1;
      else run.updated += 1;
      if (liveAt !== undefined) run.digest.remove(meal.id, liveAt);
      run.digest.add(meal.id, run.clock);
      written.delete(meal.id);
      written.set(meal.id, { modifiedAt: run.clock, body: encodeMealAt(content, run.clock) });
    });
    const replaced = [...existing.keys()].filter((id) => written.has(id));
    for (const ids of chunks(replaced)) {
      await tx.unsafe('DELETE FROM meals WHERE user_id = $1 AND id = ANY($2::text[])', [userId, ids], PREPARED);
    }
    for (const rows of chunks([...written])) {
      const ids = rows.map(([id]) => id);
      // ON CONFLICT DO NOTHING: an id another user's import wrote since the look-up is that
      // user's now, a foreign id like any other, not a failure of the whole (unrepeatable) import.
      const inserted = await tx.unsafe(
        `INSERT INTO meals (user_id, modified_at, id, deleted, body)
         SELECT $1, modified_at, id, false, body FROM unnest($2::bigint[], $3::text[], $4::text[]) AS t(modified_at, id, body)
         ON CONFLICT DO NOTHING`,
        [userId, rows.map(([, row]) => row.modifiedAt), ids, rows.map(([, row]) => row.body)],
        PREPARED,
      );
      if (inserted.count < rows.length) {
        const id = await takenMeanwhile(run, ids);
        if (id === undefined) throw new Error('an insert of meals skipped rows that no other user holds');
        throw new ForeignMeal(run.taken + meals.findIndex((meal) => meal.id === id));
      }
    }
    run.taken += meals.length;
  }

  /** The end of a write: the commit step, when anything changed. */
  async function finishRun(run: WriteRun) {
    const { tx, userId, first, clock, now } = run;
    if (first !== undefined && clock !== undefined) {
      await commitChange(tx, { userId, first, last: clock, now, digestBefore: run.digestBefore, digest: run.digest });
    }
    return { created: run.created, updated: run.updated, unchanged: run.unchanged };
  }

  function upsert(userId: string, meals: readonly MealContent[], now: number) {
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
  async function importBatches(userId: string, batches: AsyncIterable<readonly MealContent[]>, now: number) {
    const ready = await withFirstBatchRead(batches);
    return sql.begin(async (tx) => {
      const run = await startRun(tx, userId, now);
      for await (const meals of ready) await writeBatch(run, meals);
      return finishRun(run);
    });
  }

  async function remove(userId: string, mealId: string, now: number): Promise<DeleteResult> {
    // The owner first, without a lock: an unknown or foreign id takes no user's lock.
    const [owner] = await sql.unsafe<{ user_id: string }[]>(
      'SELECT user_id FROM meals WHERE id = $1',
      [mealId],
      PREPARED,
    );
    if (owner === undefined || owner.user_id !== userId) return 'not_found';
    return sql.begin(async (tx) => {
      const { clock, digest: digestBefore } = await lockClock(tx, userId);
      // Read again under the user's lock: what it says now cannot change until commit.
      const [row] = await tx.unsafe<{ deleted: boolean; modified_at: number }[]>(
        'SELECT deleted, modified_at FROM meals WHERE id = $1 AND user_id = $2',
        [mealId, userId],
        PREPARED,
      );
      if (row === undefined) return 'not_found';
      if (row.deleted) return 'already_deleted';
      const modifiedAt = nextModifiedAt(clock, now);
      await tx.unsafe(
        'UPDATE meals SET modified_at = $3, deleted = true, body = $4 WHERE id = $1 AND user_id = $2',
        [mealId, userId, modifiedAt, encodeTombstone(mealId, modifiedAt)],
        PREPARED,
      );
      const digest = new DigestChange();
      digest.remove(mealId, row.modified_at);
      await commitChange(tx, { userId, first: modifiedAt, last: modifiedAt, now, digestBefore, digest });
      return 'deleted';
    });
  }

  return {
    upsertMeals: (userId: string, meals: readonly MealContent[], now: number): Promise<UpsertResult> =>
      writeAnswer(withRetry(() => upsert(userId, meals, now))),

    /** Not retried: the batches cannot be read twice; an id taken meanwhile is a foreign id (writeBatch). */
    importMeals: (userId: string, batches: AsyncIterable<readonly MealContent[]>, now: number): Promise<UpsertResult> =>
      writeAnswer(importBatches(userId, batches, now)),

    deleteMeal: (userId: string, mealId: string, now: number) => withRetry(() => remove(userId, mealId, now)),

    /**
     * One statement: the tombstones deleted drive the watermark, each user's moving to the
     * newest of its own pruned, forward only; readers see both changes or neither.
     */
    async pruneTombstones(before: number): Promise<number> {
      const [row] = await sql.unsafe<{ pruned: number }[]>(
        `WITH pruned AS (
           DELETE FROM meals WHERE deleted AND modified_at < $1 RETURNING user_id, modified_at, id
         ), newest AS (
           SELECT DISTINCT ON (user_id) user_id, modified_at, id FROM pruned
           ORDER BY user_id, modified_at DESC, id DESC
         ), marked AS (
           UPDATE user_clocks AS clock SET pruned_modified_at = newest.modified_at, pruned_id = newest.id
           FROM newest
           WHERE clock.user_id = newest.user_id
             AND (clock.pruned_modified_at IS NULL
                  OR (newest.modified_at, newest.id) > (clock.pruned_modified_at, clock.pruned_id))
           RETURNING 1
         )
         SELECT count(*)::int AS pruned FROM pruned`,
        [before],
        PREPARED,
      );
      return Number(row?.pruned ?? 0);
    },
  };
}
