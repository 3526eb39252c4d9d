import type { MealWrites } from './meal-writes.js';

/**
 * Tombstones one transaction of a prune removes, about: a prune of a million (the first after a
 * mass deletion) holds each piece's rows, and on SQLite the store's one write lock, for a
 * fraction of a second instead of the whole prune (18 s for 1 M in a 10 M-meal store on
 * PostgreSQL: docs/capacity.md#the-stores-growth-measured), and other writes go on between them.
 */
export const PRUNE_PIECE = 10_000;

/**
 * Prunes every tombstone before `before` (MealWrites.pruneTombstones), oldest first, a piece
 * per transaction; returns how many. Each piece moves the users' watermarks of its own
 * tombstones, so a prune stopped between pieces (a busy store, a stop) leaves a consistent
 * store and the next one goes on from there.
 */
export async function pruneInPieces(
  writes: Pick<MealWrites, 'pruneTombstones'>,
  before: number,
  piece: number = PRUNE_PIECE,
): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await writes.pruneTombstones(before, piece);
    total += removed;
    // A piece removes at least `piece` while that many are left: fewer means none is.
    if (removed < piece) return total;
  }
}
