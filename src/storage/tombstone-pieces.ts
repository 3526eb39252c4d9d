import { setTimeout as sleep } from 'node:timers/promises';
import type { MealWrites } from './meal-writes.js';

/**
 * Tombstones one transaction of a prune removes, about: a prune of a million (the first after a
 * mass deletion) holds each piece's rows, and on SQLite the store's one write lock, for a
 * fraction of a second instead of the whole prune (bench/RESULTS.md, "The import's memory, and
 * the prune in pieces"), and other writes go on between them.
 */
export const PRUNE_PIECE = 10_000;
/** Between two pieces, at least: SQLite's writers of other processes, retrying every 5-100 ms, get the lock. */
const MIN_PAUSE_MS = 20;

/**
 * Prunes every tombstone before `before` (MealWrites.pruneTombstones), oldest first, a piece
 * per transaction; returns how many. Between pieces it pauses as long as the last piece took
 * (at least MIN_PAUSE_MS), so that a serving process's requests, and other processes' writes,
 * go on beside a long prune; a piece that meets another connection's write lock waits for it as
 * any write does (MEAL_WRITES_TRAITS). Each piece moves the users' watermarks of its own
 * tombstones, so a prune stopped between pieces (`stopped`, a store that stays locked) leaves a
 * consistent store, and the next one goes on from there.
 */
export async function pruneInPieces(
  writes: Pick<MealWrites, 'pruneTombstones'>,
  before: number,
  options: { readonly piece?: number; readonly stopped?: () => boolean } = {},
): Promise<number> {
  const piece = options.piece ?? PRUNE_PIECE;
  if (!Number.isInteger(piece) || piece < 1) throw new RangeError(`a prune's piece must be 1 or more, got ${piece}`);
  let total = 0;
  while (options.stopped?.() !== true) {
    const started = performance.now();
    const removed = await writes.pruneTombstones(before, piece);
    total += removed;
    // Until a piece finds none: one that removed fewer than `piece` may have met a tombstone
    // revived meanwhile, with older ones still behind it.
    if (removed === 0) break;
    await sleep(Math.max(MIN_PAUSE_MS, performance.now() - started));
  }
  return total;
}
