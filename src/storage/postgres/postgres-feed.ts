import type { Sql } from 'postgres';
import type { FeedStart } from '../../domain/feed-start.js';
import type { Meal } from '../../domain/meal.js';
import { EMPTY_DIGEST, type MealsDigest } from '../../domain/meals-digest.js';
import { decodeMeal, LIVE_MEAL_DELETED_SUFFIX } from '../../domain/meal-json.js';
import type { FeedPage, FeedQuery, MealFeed, StoredMeal } from '../meal-feed.js';

/** Named prepared statements: parsed and planned once per connection. */
const PREPARED = { prepare: true } as const;
const EMPTY = Buffer.alloc(0);

// With includeDeleted, a live meal's stored JSON gets `"deleted":false` before its closing brace.
const WITH_DELETED_ITEM = `CASE WHEN deleted THEN body ELSE left(body, -1) || '${LIVE_MEAL_DELETED_SUFFIX}' END`;

/**
 * One page as one row of one statement, so one snapshot (READ COMMITTED takes one per
 * statement): the items joined by commas (sent as the raw UTF-8 bytes PostgreSQL returns,
 * never decoded), their count, the last position, whether more match after it, the user's
 * change clock and live meals' digest, and with includeDeleted the pruned-tombstone watermark.
 * Parameters: $1 user, $2 limit, then the start ($3 modifiedAt, and $4 id after a cursor).
 *
 * The aggregates read the index scan's rows in the order it yields them (no join between), so
 * they join and pick the last without sorting again and without a materialised CTE: a third of
 * the page of 5000's cost (docs/capacity.md#postgresql). The "more"
 * probe is a scalar subquery with ORDER BY … LIMIT 1, which keeps the primary key's order:
 * an EXISTS drops both, and the planner may then scan the table for a heavy user.
 */
function pageSql(includeDeleted: boolean, afterCursor: boolean): string {
  const live = includeDeleted ? '' : 'AND NOT deleted';
  const start = afterCursor ? '(modified_at, id) > ($3, $4)' : 'modified_at >= $3';
  const watermark = includeDeleted ? ', clock.pruned_modified_at, clock.pruned_id' : '';
  return `SELECT page.count, page.items, page.last_modified_at, page.last_id,
      CASE WHEN page.count = $2 THEN COALESCE((
        SELECT true FROM meals AS more
        WHERE more.user_id = $1 AND (more.modified_at, more.id) > (page.last_modified_at, page.last_id) ${live}
        ORDER BY more.modified_at, more.id LIMIT 1
      ), false) ELSE false END,
      clock.last_modified_at, clock.live_count, encode(clock.digest_sum, 'hex')${watermark}
    FROM (
      SELECT count(*) AS count, string_agg(item, ',') AS items,
        max(modified_at) AS last_modified_at, (array_agg(id))[count(*)] AS last_id
      FROM (
        SELECT modified_at, id, ${includeDeleted ? WITH_DELETED_ITEM : 'body'} AS item FROM meals
        WHERE user_id = $1 AND ${start} ${live}
        ORDER BY modified_at, id LIMIT $2
      ) AS rows
    ) AS page LEFT JOIN user_clocks AS clock ON clock.user_id = $1`;
}

const PAGE_SQL = {
  liveFrom: pageSql(false, false),
  liveAfter: pageSql(false, true),
  allFrom: pageSql(true, false),
  allAfter: pageSql(true, true),
};

function pageStatement(includeDeleted: boolean, start: FeedStart): string {
  if (includeDeleted) return start.kind === 'after' ? PAGE_SQL.allAfter : PAGE_SQL.allFrom;
  return start.kind === 'after' ? PAGE_SQL.liveAfter : PAGE_SQL.liveFrom;
}

const text = (value: Buffer | null | undefined) => (value === null || value === undefined ? null : value.toString());

/** The clock row's digest as the page's raw row sends it: the count, and the sum in hex. */
function digestOfText(hasClock: boolean, count: string | null, sumHex: string | null): MealsDigest | undefined {
  if (!hasClock) return EMPTY_DIGEST;
  if (count === null || sumHex === null) return undefined;
  return { count: Number(count), sum: BigInt(`0x${sumHex}`) };
}

/** MealFeed on PostgreSQL. */
export function createPostgresFeed(sql: Sql): MealFeed {
  return {
    async listFeed(query: FeedQuery): Promise<FeedPage> {
      const { userId, start, includeDeleted, limit } = query;
      const params =
        start.kind === 'after'
          ? [userId, limit, start.position.modifiedAt, start.position.id]
          : [userId, limit, start.modifiedAt];
      const [row] = await sql.unsafe(pageStatement(includeDeleted, start), params, PREPARED).raw();
      const [count, items, lastModifiedAt, lastId, hasMore, clock, liveCount, digestHex, prunedModifiedAt, prunedId] =
        (row ?? []) as (Buffer | null)[];
      const clockText = text(clock);
      const newestChangeAt = clockText === null ? undefined : Number(clockText);
      const liveDigest = digestOfText(newestChangeAt !== undefined, text(liveCount), text(digestHex));
      const pruned = text(prunedModifiedAt);
      const prunedIdText = text(prunedId);
      const prunedThrough =
        pruned === null || prunedIdText === null ? undefined : { modifiedAt: Number(pruned), id: prunedIdText };
      const last = text(lastModifiedAt);
      const lastIdText = text(lastId);
      const itemCount = Number(text(count) ?? 0);
      if (itemCount === 0 || items === null || items === undefined || last === null || lastIdText === null) {
        return { items: EMPTY, count: 0, last: undefined, hasMore: false, newestChangeAt, liveDigest, prunedThrough };
      }
      return {
        items,
        count: itemCount,
        last: { modifiedAt: Number(last), id: lastIdText },
        hasMore: text(hasMore) === 't',
        newestChangeAt,
        liveDigest,
        prunedThrough,
      };
    },

    async getMeal(userId: string, mealId: string): Promise<StoredMeal | undefined> {
      // By id (its unique index), then the owner: another user's meal is as unknown as a made-up id.
      const [row] = await sql.unsafe<
        { item: string; modified_at: number; deleted: boolean; source_version: number | null }[]
      >(
        `SELECT ${WITH_DELETED_ITEM} AS item, modified_at, deleted, source_version FROM meals WHERE id = $1 AND user_id = $2`,
        [mealId, userId],
        PREPARED,
      );
      if (row === undefined) return undefined;
      return { item: row.item, modifiedAt: row.modified_at, deleted: row.deleted, sourceVersion: row.source_version };
    },

    async *exportMeals(userId: string, since: number): AsyncGenerator<Meal> {
      const rows = sql
        .unsafe<{ body: string }[]>(
          'SELECT body FROM meals WHERE user_id = $1 AND modified_at >= $2 AND NOT deleted ORDER BY modified_at, id',
          [userId, since],
          PREPARED,
        )
        .cursor(1000);
      for await (const batch of rows) for (const row of batch) yield decodeMeal(row.body);
    },
  };
}
