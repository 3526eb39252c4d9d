import type { Database } from 'better-sqlite3';
import { nextModifiedAt } from '../../domain/change-clock.js';
import type { Meal, MealContent } from '../../domain/meal.js';
import { decodeMeal, encodeMeal, encodeTombstone, LIVE_MEAL_DELETED_SUFFIX } from '../../domain/meal-json.js';
import type { DeleteResult, FeedPage, FeedQuery, UpsertResult } from '../storage.js';

type FeedRow = [body: string, modifiedAt: number, id: string];

interface ExistingMeal {
  readonly user_id: string;
  readonly modified_at: number;
  readonly deleted: number;
}

/** Thrown inside a write transaction to roll it back; never leaves this module. */
class ForeignMeal extends Error {
  constructor(readonly index: number) {
    super('foreign meal id');
  }
}

// With includeDeleted, a live meal's stored JSON gets `"deleted":false` before its closing brace.
const WITH_DELETED_ITEM = `CASE deleted WHEN 0 THEN substr(body, 1, length(body) - 1) || '${LIVE_MEAL_DELETED_SUFFIX}' ELSE body END`;
const FROM = 'user_id = ? AND modified_at >= ?';
const AFTER = 'user_id = ? AND (modified_at, id) > (?, ?)';
const ORDER = 'ORDER BY modified_at, id LIMIT ?';

/** The meals half of the SQLite adapter: every statement prepared once. */
export function createSqliteMeals(db: Database) {
  const feed = {
    liveFrom: db.prepare(`SELECT body, modified_at, id FROM meals WHERE ${FROM} AND deleted = 0 ${ORDER}`).raw(),
    liveAfter: db.prepare(`SELECT body, modified_at, id FROM meals WHERE ${AFTER} AND deleted = 0 ${ORDER}`).raw(),
    allFrom: db.prepare(`SELECT ${WITH_DELETED_ITEM}, modified_at, id FROM meals WHERE ${FROM} ${ORDER}`).raw(),
    allAfter: db.prepare(`SELECT ${WITH_DELETED_ITEM}, modified_at, id FROM meals WHERE ${AFTER} ${ORDER}`).raw(),
  };
  const exportLive = db.prepare(
    'SELECT body FROM meals WHERE user_id = ? AND modified_at >= ? AND deleted = 0 ORDER BY modified_at, id',
  );
  const selectById = db.prepare<[string], ExistingMeal>('SELECT user_id, modified_at, deleted FROM meals WHERE id = ?');
  const selectClock = db
    .prepare<[string], number>('SELECT last_modified_at FROM user_clocks WHERE user_id = ?')
    .pluck();
  const saveClock = db.prepare(
    'INSERT INTO user_clocks (user_id, last_modified_at) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET last_modified_at = excluded.last_modified_at',
  );
  const removeRow = db.prepare('DELETE FROM meals WHERE user_id = ? AND modified_at = ? AND id = ?');
  const insertRow = db.prepare('INSERT INTO meals (user_id, modified_at, id, deleted, body) VALUES (?, ?, ?, ?, ?)');
  const pruneBefore = db.prepare('DELETE FROM meals WHERE deleted = 1 AND modified_at < ?');

  const upsert = db.transaction((userId: string, meals: readonly MealContent[], now: number) => {
    let clock = selectClock.get(userId);
    let created = 0;
    let updated = 0;
    meals.forEach((meal, index) => {
      const existing = selectById.get(meal.id);
      if (existing !== undefined && existing.user_id !== userId) throw new ForeignMeal(index);
      clock = nextModifiedAt(clock, now);
      if (existing === undefined) created += 1;
      else {
        updated += 1;
        removeRow.run(userId, existing.modified_at, meal.id);
      }
      insertRow.run(userId, clock, meal.id, 0, encodeMeal({ ...meal, modifiedAt: clock }));
    });
    if (clock !== undefined) saveClock.run(userId, clock);
    return { created, updated };
  });

  const remove = db.transaction((userId: string, mealId: string, now: number): DeleteResult => {
    const existing = selectById.get(mealId);
    if (existing === undefined || existing.user_id !== userId) return 'not_found';
    if (existing.deleted !== 0) return 'already_deleted';
    const modifiedAt = nextModifiedAt(selectClock.get(userId), now);
    removeRow.run(userId, existing.modified_at, mealId);
    insertRow.run(userId, modifiedAt, mealId, 1, encodeTombstone(mealId, modifiedAt));
    saveClock.run(userId, modifiedAt);
    return 'deleted';
  });

  return {
    listFeed(query: FeedQuery): FeedPage {
      const { userId, after, limit } = query;
      // One more row than asked tells whether more match after this page.
      const rows = (
        after === undefined
          ? (query.includeDeleted ? feed.allFrom : feed.liveFrom).all(userId, query.from, limit + 1)
          : (query.includeDeleted ? feed.allAfter : feed.liveAfter).all(userId, after.modifiedAt, after.id, limit + 1)
      ) as FeedRow[];
      const hasMore = rows.length > limit;
      if (hasMore) rows.length = limit;
      const lastRow = rows[rows.length - 1];
      return {
        items: rows.map((row) => row[0]),
        last: lastRow === undefined ? undefined : { modifiedAt: lastRow[1], id: lastRow[2] },
        hasMore,
      };
    },

    *exportMeals(userId: string, since: number): Generator<Meal> {
      for (const row of exportLive.pluck().iterate(userId, since)) yield decodeMeal(row as string);
    },

    upsertMeals(userId: string, meals: readonly MealContent[], now: number): UpsertResult {
      try {
        return { ok: true, ...upsert.immediate(userId, meals, now) };
      } catch (error) {
        if (error instanceof ForeignMeal) return { ok: false, reason: 'foreign_id', index: error.index };
        throw error;
      }
    },

    deleteMeal(userId: string, mealId: string, now: number): DeleteResult {
      return remove.immediate(userId, mealId, now);
    },

    pruneTombstones(before: number): number {
      return pruneBefore.run(before).changes;
    },
  };
}
