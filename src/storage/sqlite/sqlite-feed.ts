import type { Database, Statement } from 'better-sqlite3';
import type { FeedStart } from '../../domain/feed-start.js';
import type { Meal } from '../../domain/meal.js';
import { decodeMeal, LIVE_MEAL_DELETED_SUFFIX } from '../../domain/meal-json.js';
import { storedDigest } from '../digest-bytes.js';
import type { FeedPage, FeedQuery, MealFeed, StoredMeal } from '../meal-feed.js';
import type { Implementation } from '../guarded-concerns.js';

type PageRow = [
  count: number,
  items: Buffer | null,
  lastModifiedAt: number | null,
  lastId: string | null,
  hasMore: number,
  // The user's change clock (null: the user never had a change), and the live meals' digest.
  newestChangeAt: number | null,
  liveCount: number | null,
  digestSum: Buffer | null,
  // With includeDeleted only: the user's pruned-tombstone watermark.
  prunedModifiedAt?: number | null,
  prunedId?: string | null,
];

const EMPTY = Buffer.alloc(0);

// With includeDeleted, a live meal's stored JSON gets `"deleted":false` before its closing brace.
const WITH_DELETED_ITEM = `CASE deleted WHEN 0 THEN substr(body, 1, length(body) - 1) || '${LIVE_MEAL_DELETED_SUFFIX}' ELSE body END`;
/** Enough prepared page statements for every limit clients really use; the oldest goes first. */
const MAX_PAGE_STATEMENTS = 64;

/**
 * One page as one row of one statement, so one snapshot: the items joined by commas as one
 * UTF-8 blob (no per-row values cross into JavaScript), their count, the last position
 * (max(modified_at) makes SQLite take `id` from that row), whether more match after it (one
 * index seek, only for a full page), the user's clock and digest, and with includeDeleted the
 * pruned-tombstone watermark. SQLite aggregates the ordered subquery in its order
 * (test/storage pins it). LIMIT is written into the SQL: a bound one made SQLite re-plan the
 * statement on every call. Parameters: ?1 the user, ?2 and ?3 the start.
 */
function pageSql(includeDeleted: boolean, afterCursor: boolean, limit: number): string {
  const item = includeDeleted ? WITH_DELETED_ITEM : 'body';
  const live = includeDeleted ? '' : 'AND deleted = 0';
  const start = afterCursor ? '(modified_at, id) > (?2, ?3)' : 'modified_at >= ?2';
  const watermark = includeDeleted ? ', clock.pruned_modified_at, clock.pruned_id' : '';
  return `SELECT page.n, page.items, page.last_at, page.last_id,
      CASE WHEN page.n = ${limit} THEN EXISTS (
        SELECT 1 FROM meals WHERE user_id = ?1 AND (modified_at, id) > (page.last_at, page.last_id) ${live}
      ) ELSE 0 END,
      clock.last_modified_at, clock.live_count, clock.digest_sum${watermark}
    FROM (SELECT count(*) AS n, CAST(group_concat(item, ',') AS BLOB) AS items, max(modified_at) AS last_at, id AS last_id
          FROM (SELECT ${item} AS item, modified_at, id FROM meals WHERE user_id = ?1 AND ${start} ${live}
                ORDER BY modified_at, id LIMIT ${limit})) AS page
    LEFT JOIN user_clocks AS clock ON clock.user_id = ?1`;
}

/** The page statement's numbered parameters (better-sqlite3 binds `?N` by key): the user, then the start. */
function pageParams(userId: string, start: FeedStart): Record<number, string | number> {
  return start.kind === 'after'
    ? { 1: userId, 2: start.position.modifiedAt, 3: start.position.id }
    : { 1: userId, 2: start.modifiedAt };
}

/** MealFeed on SQLite: every statement prepared once. */
export function createSqliteFeed(db: Database): Implementation<MealFeed> {
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

  const exportLive = db
    .prepare<[string, number], string>(
      'SELECT body FROM meals WHERE user_id = ? AND modified_at >= ? AND deleted = 0 ORDER BY modified_at, id',
    )
    .pluck();
  // By id (its unique index), then the owner: another user's meal is as unknown as a made-up id.
  const selectMeal = db.prepare<
    [string, string],
    { item: string; modified_at: number; deleted: number; source_version: number | null }
  >(
    `SELECT ${WITH_DELETED_ITEM} AS item, modified_at, deleted, source_version FROM meals WHERE id = ? AND user_id = ?`,
  );

  return {
    listFeed(query: FeedQuery): FeedPage {
      const { userId, start, includeDeleted, limit } = query;
      const statement = pageStatement(includeDeleted, start.kind === 'after', limit);
      const row = statement.get(pageParams(userId, start)) as PageRow;
      const [count, items, lastModifiedAt, lastId, more, clock, liveCount, digestSum, prunedModifiedAt, prunedId] = row;
      const newestChangeAt = clock ?? undefined;
      const liveDigest = storedDigest(clock !== null, liveCount, digestSum);
      const prunedThrough =
        typeof prunedModifiedAt === 'number' && typeof prunedId === 'string'
          ? { modifiedAt: prunedModifiedAt, id: prunedId }
          : undefined;
      if (count === 0 || items === null || lastModifiedAt === null || lastId === null) {
        return { items: EMPTY, count: 0, last: undefined, hasMore: false, newestChangeAt, liveDigest, prunedThrough };
      }
      return {
        items,
        count,
        last: { modifiedAt: lastModifiedAt, id: lastId },
        hasMore: more === 1,
        newestChangeAt,
        liveDigest,
        prunedThrough,
      };
    },

    getMeal(userId: string, mealId: string): StoredMeal | undefined {
      const row = selectMeal.get(mealId, userId);
      if (row === undefined) return undefined;
      return {
        item: row.item,
        modifiedAt: row.modified_at,
        deleted: row.deleted !== 0,
        sourceVersion: row.source_version,
      };
    },

    *exportMeals(userId: string, since: number): Generator<Meal> {
      for (const body of exportLive.iterate(userId, since)) yield decodeMeal(body);
    },
  };
}
