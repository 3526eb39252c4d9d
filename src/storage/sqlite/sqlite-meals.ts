import type { Database, Statement } from 'better-sqlite3';
import { nextModifiedAt } from '../../domain/change-clock.js';
import type { Meal, MealContent } from '../../domain/meal.js';
import {
  decodeMeal,
  encodeMealAt,
  encodeMealContent,
  encodeTombstone,
  isStoredMeal,
  LIVE_MEAL_DELETED_SUFFIX,
} from '../../domain/meal-json.js';
import type { FeedStart } from '../../domain/feed-start.js';
import type { DeleteResult, FeedPage, FeedQuery, UpsertResult } from '../storage.js';
import { createSqliteAppender, isConstraintFailure } from './sqlite-append.js';
import { createSqliteWebhookOutbox } from './sqlite-webhook-outbox.js';
import { withFirstBatchRead } from '../first-batch.js';
import { ForeignMeal, foreignMealResult, writeAnswer } from '../foreign-meal.js';

type PageRow = [
  count: number,
  items: Buffer | null,
  lastModifiedAt: number | null,
  lastId: string | null,
  // The user's change clock (null: the user never had a change).
  newestChangeAt: number | null,
  // With includeDeleted only: the user's pruned-tombstone watermark.
  prunedModifiedAt?: number | null,
  prunedId?: string | null,
];

interface ExistingMeal {
  readonly user_id: string;
  readonly modified_at: number;
  readonly deleted: number;
  readonly body: string;
}

const EMPTY = Buffer.alloc(0);

// With includeDeleted, a live meal's stored JSON gets `"deleted":false` before its closing brace.
const WITH_DELETED_ITEM = `CASE deleted WHEN 0 THEN substr(body, 1, length(body) - 1) || '${LIVE_MEAL_DELETED_SUFFIX}' ELSE body END`;
const FROM = 'user_id = ? AND modified_at >= ?';
const AFTER = 'user_id = ? AND (modified_at, id) > (?, ?)';
const LIVE = 'AND deleted = 0';
/** Enough prepared page statements for every limit clients really use; the oldest goes first. */
const MAX_PAGE_STATEMENTS = 64;

/**
 * One page as one row: the items joined by commas as a single UTF-8 blob (no per-row values
 * cross into JavaScript), their count, and the last one's position (max(modified_at) makes
 * SQLite take `id` from that same row). The page is the ordered, limited subquery, which
 * SQLite aggregates in its order: test/storage pins that, since an ORDER BY inside
 * group_concat would sort again and cost more than the rest of the query.
 * LIMIT is written into the SQL rather than bound: a bound LIMIT made SQLite re-plan the
 * statement on every call (measured: 14 -> 7 us for a small page).
 */
function pageSql(includeDeleted: boolean, afterCursor: boolean, limit: number): string {
  const item = includeDeleted ? WITH_DELETED_ITEM : 'body';
  const where = `${afterCursor ? AFTER : FROM} ${includeDeleted ? '' : LIVE}`;
  const page = `SELECT count(*), CAST(group_concat(item, ',') AS BLOB), max(modified_at), id FROM (
    SELECT ${item} AS item, modified_at, id FROM meals WHERE ${where} ORDER BY modified_at, id LIMIT ${limit})`;
  // The user's clock, and with includeDeleted the pruned-tombstone watermark, read by the same
  // statement (one primary-key lookup): one snapshot with the page (storage.ts).
  const watermark = includeDeleted ? ', clock.pruned_modified_at, clock.pruned_id' : '';
  return `SELECT page.*, clock.last_modified_at${watermark} FROM (${page}) AS page
    LEFT JOIN user_clocks AS clock ON clock.user_id = ?`;
}

/** The page statement's parameters: the start's, then the user again for the clock. */
function pageParams(userId: string, start: FeedStart): unknown[] {
  return start.kind === 'after'
    ? [userId, start.position.modifiedAt, start.position.id, userId]
    : [userId, start.modifiedAt, userId];
}

/** The meals half of the SQLite adapter: every statement prepared once. */
export function createSqliteMeals(db: Database) {
  const pageStatements = new Map<string, Statement>();
  function pageStatement(includeDeleted: boolean, afterCursor: boolean, limit: number): Statement {
    const key = `${includeDeleted ? 'all' : 'live'}:${afterCursor ? 'after' : 'from'}:${limit}`;
    let statement = pageStatements.get(key);
    if (statement === undefined) {
      // The limit is part of the SQL text: only a positive whole number may get there.
      if (!Number.isSafeInteger(limit) || limit < 1)
        throw new RangeError(`page limit must be a positive integer: ${limit}`);
      if (pageStatements.size >= MAX_PAGE_STATEMENTS) {
        const oldest = pageStatements.keys().next();
        if (oldest.done !== true) pageStatements.delete(oldest.value);
      }
      statement = db.prepare(pageSql(includeDeleted, afterCursor, limit)).raw();
      pageStatements.set(key, statement);
    }
    return statement;
  }
  // Whether anything matches after a position: one index seek.
  const moreLive = db.prepare(`SELECT 1 FROM meals WHERE ${AFTER} ${LIVE} LIMIT 1`).pluck();
  const moreAll = db.prepare(`SELECT 1 FROM meals WHERE ${AFTER} LIMIT 1`).pluck();

  const exportLive = db
    .prepare<[string, number], string>(
      'SELECT body FROM meals WHERE user_id = ? AND modified_at >= ? AND deleted = 0 ORDER BY modified_at, id',
    )
    .pluck();
  const selectById = db.prepare<[string], ExistingMeal>(
    'SELECT user_id, modified_at, deleted, body FROM meals WHERE id = ?',
  );
  const selectClock = db
    .prepare<[string], number>('SELECT last_modified_at FROM user_clocks WHERE user_id = ?')
    .pluck();
  // The clock moves with the next change sequence (migration 6): how other processes' long
  // polls learn which users changed (sqlite-feed-signals.ts).
  const saveClock = db.prepare(
    `INSERT INTO user_clocks (user_id, last_modified_at, change_seq)
     VALUES (?, ?, (SELECT coalesce(max(change_seq), 0) + 1 FROM user_clocks))
     ON CONFLICT (user_id) DO UPDATE SET last_modified_at = excluded.last_modified_at, change_seq = excluded.change_seq`,
  );
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
  // Every transaction that saves a user's clock queues the user's webhook events with it.
  const queueChangeEvents = createSqliteWebhookOutbox(db);

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
    created: number;
    updated: number;
    unchanged: number;
  }

  function startRun(userId: string, now: number): WriteRun {
    const clock = selectClock.get(userId);
    const run = { userId, now, clock, first: undefined, taken: 0, appending: clock === undefined };
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
      // Equal to the live meal: no change (CONTRACT.md section 7), so no write and no clock step.
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
      }
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

  /** The end of a write: the clock saved and the webhook events queued, when anything changed. */
  function finishRun(run: WriteRun) {
    if (run.first !== undefined && run.clock !== undefined) {
      saveClock.run(run.userId, run.clock);
      queueChangeEvents(run.userId, run.first, run.clock, run.now);
    }
    return { created: run.created, updated: run.updated, unchanged: run.unchanged };
  }

  const upsert = db.transaction((userId: string, meals: readonly MealContent[], now: number) => {
    const run = startRun(userId, now);
    writeBatch(run, meals);
    return finishRun(run);
  });

  /**
   * An import's batches in one transaction held across the awaits between them (issue 17,
   * item 7). better-sqlite3's transaction functions cannot span an await, so this one is
   * opened by hand. It is safe only because nothing else uses this connection meanwhile: the
   * only caller is `meals import`, a process of its own with one storage handle, which awaits
   * nothing but its input between batches; sqlite-storage.ts refuses any other call made on
   * the handle while it is open. The alternative, reading the input synchronously inside
   * db.transaction(), would block on stdin and stop the progress line. BEGIN IMMEDIATE takes
   * the write lock once the first batch is read (withFirstBatchRead), as .immediate() does for
   * the other writes, and holds it until the input ends: other processes' writers wait for it
   * (busy timeout) or fail at once (serve's background writes); readers, and processes opening
   * a store that is up to date (migrate.ts), go on.
   */
  async function importBatches(userId: string, batches: AsyncIterable<readonly MealContent[]>, now: number) {
    // No memory map while importing: the import's reads (the id index, the commit's
    // checkpoint) went through the map, and every page touched stayed in the process's
    // resident set: a 200 k import into a 1.2 M-meal store peaked at 578 MB of RSS, 133 MB
    // with reads through the 8 MiB page cache, in the same time (6.8 s / 6.2 s).
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
    saveClock.run(userId, modifiedAt);
    queueChangeEvents(userId, modifiedAt, modifiedAt, now);
    return 'deleted';
  });

  return {
    listFeed(query: FeedQuery): FeedPage {
      const { userId, start, includeDeleted, limit } = query;
      const statement = pageStatement(includeDeleted, start.kind === 'after', limit);
      const row = statement.get(...pageParams(userId, start)) as PageRow;
      const [count, items, lastModifiedAt, lastId, clock, prunedModifiedAt, prunedId] = row;
      const newestChangeAt = clock ?? undefined;
      const prunedThrough =
        typeof prunedModifiedAt === 'number' && typeof prunedId === 'string'
          ? { modifiedAt: prunedModifiedAt, id: prunedId }
          : undefined;
      if (count === 0 || items === null || lastModifiedAt === null || lastId === null) {
        return { items: EMPTY, count: 0, last: undefined, hasMore: false, newestChangeAt, prunedThrough };
      }
      const more = includeDeleted ? moreAll : moreLive;
      return {
        items,
        count,
        last: { modifiedAt: lastModifiedAt, id: lastId },
        hasMore: count === limit && more.get(userId, lastModifiedAt, lastId) !== undefined,
        newestChangeAt,
        prunedThrough,
      };
    },

    *exportMeals(userId: string, since: number): Generator<Meal> {
      for (const body of exportLive.iterate(userId, since)) yield decodeMeal(body);
    },

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
