import type { UpsertResult } from './meal-writes.js';

/** What a write that went through did: how many meals of each outcome. */
export type WriteCounts = Omit<Extract<UpsertResult, { ok: true }>, 'ok'>;

/**
 * Thrown inside a write transaction, on either backend, when a record's id belongs to another
 * user: it rolls the whole write back. It never leaves the storage layer: `foreignMealResult`
 * turns it into the write's answer.
 */
export class ForeignMeal extends Error {
  constructor(readonly index: number) {
    super('foreign meal id');
  }
}

/** The answer of a write that threw: `foreign_id` with the record's index for a ForeignMeal; anything else is rethrown. */
export function foreignMealResult(error: unknown): UpsertResult {
  if (error instanceof ForeignMeal) return { ok: false, reason: 'foreign_id', index: error.index };
  throw error;
}

/** The answer of a write still running: its counts, or `foreign_id` if a ForeignMeal rolled it back. */
export function writeAnswer(write: Promise<WriteCounts>): Promise<UpsertResult> {
  return write.then((counts) => ({ ok: true, ...counts }), foreignMealResult);
}
