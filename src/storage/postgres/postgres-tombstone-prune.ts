import type { Sql } from 'postgres';

const PREPARED = { prepare: true } as const;

/**
 * The prune's statement: $1 the bound, $2 the piece (null: every tombstone before the bound).
 * The tombstones' bound is one value, so that the delete finds its rows by the tombstones'
 * index whatever plan is kept (a generic one would filter an OR row by row, every tombstone).
 */
export const PRUNE_STATEMENT = `WITH piece_end AS (
       SELECT CASE WHEN $2::bigint IS NULL THEN $1::bigint
         ELSE coalesce((SELECT modified_at + 1 FROM meals WHERE deleted AND modified_at < $1
                        ORDER BY modified_at OFFSET $2::bigint - 1 LIMIT 1), $1::bigint) END AS before
     ), pruned AS (
       DELETE FROM meals WHERE deleted AND modified_at < (SELECT before FROM piece_end)
       RETURNING user_id, modified_at, id
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
     SELECT count(*)::int AS pruned FROM pruned`;

/**
 * MealWrites.pruneTombstones on PostgreSQL, one statement: the tombstones deleted drive the
 * watermark, each user's moving to the newest of its own pruned, forward only; readers see
 * both changes or neither. A piece (storage/tombstone-pieces.ts) ends at the instant of the
 * `piece`-th oldest tombstone, taken in the same statement.
 */
export async function pruneTombstones(sql: Sql, before: number, piece?: number): Promise<number> {
  const [row] = await sql.unsafe<{ pruned: number }[]>(PRUNE_STATEMENT, [before, piece ?? null], PREPARED);
  return Number(row?.pruned ?? 0);
}
