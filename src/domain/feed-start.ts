import type { FeedPosition } from './meal.js';

/**
 * Where a page of the feed starts (docs/api.md#the-call): `lastModifiedSince` (inclusive) and
 * the cursor's position (exclusive) both filter, so the later of the two is the start.
 * - `from`: every change with modifiedAt >= `modifiedAt`;
 * - `after`: every change strictly after `position` in (modifiedAt, id) order.
 */
export type FeedStart =
  { readonly kind: 'from'; readonly modifiedAt: number } | { readonly kind: 'after'; readonly position: FeedPosition };

/** Orders two positions as the feed does: modifiedAt, then id in byte order. */
export function compareFeedPositions(a: FeedPosition, b: FeedPosition): number {
  if (a.modifiedAt !== b.modifiedAt) return a.modifiedAt < b.modifiedAt ? -1 : 1;
  // Ids are compared as UTF-8 bytes, as the stores sort them (SQLite BINARY, PostgreSQL "C").
  return Buffer.compare(Buffer.from(a.id, 'utf8'), Buffer.from(b.id, 'utf8'));
}

/**
 * The later of the two filters. A cursor at or after `lastModifiedSince` is the start (every
 * change after it has modifiedAt >= its own); a cursor before it filters out nothing that
 * `lastModifiedSince` lets through, so the start is `lastModifiedSince`.
 */
export function feedStart(lastModifiedSince: number, cursor: FeedPosition | undefined): FeedStart {
  if (cursor !== undefined && cursor.modifiedAt >= lastModifiedSince) return { kind: 'after', position: cursor };
  return { kind: 'from', modifiedAt: lastModifiedSince };
}

/**
 * True when a tombstone the store has pruned belongs in an answer from `start`: the newest
 * pruned position (`prunedThrough`, per user) is at or after an inclusive start, or strictly
 * after an exclusive one. Every older pruned tombstone is before that position, so checking
 * it alone decides. No pruned tombstone: never (docs/api.md#the-call, 410 resync_required).
 */
export function prunedTombstoneBelongs(start: FeedStart, prunedThrough: FeedPosition | undefined): boolean {
  if (prunedThrough === undefined) return false;
  if (start.kind === 'from') return prunedThrough.modifiedAt >= start.modifiedAt;
  return compareFeedPositions(prunedThrough, start.position) > 0;
}
