import { isStoredMeal } from '../domain/meal-json.js';
import { isRetry, isStaleWrite, keptSourceVersion, recordsNewerVersion } from '../domain/source-version.js';
import type { WriteCounts } from './foreign-meal.js';
import type { DeleteResult, SaveOutcome, SaveResult } from './meal-writes.js';

/** The meal a save meets: the user's stored row, or what an earlier record of the same call left. */
export interface MetMeal {
  readonly modifiedAt: number;
  readonly deleted: boolean;
  readonly body: string;
  readonly sourceVersion: number | null;
}

/**
 * What one save does (storage/meal-writes.ts), decided the same way on every backend so that
 * the rules of domain/source-version.ts are applied in one place. This is SQLite's decider;
 * PostgreSQL's is its twin in SQL (postgres/postgres-functions-decision.ts), which every write
 * there calls: a change here is a change there, a new migration, and
 * test/storage/write-paths.property.test.ts fails until both agree again:
 * - `stale`: nothing written;
 * - `unchanged`: nothing written but, when `recordVersion` is set, that version alone;
 * - `created` / `updated`: the meal written with `sourceVersion` kept beside it.
 */
export type SaveStep =
  | { readonly kind: 'stale' }
  | { readonly kind: 'unchanged'; readonly recordVersion: number | undefined }
  | { readonly kind: 'created' | 'updated'; readonly sourceVersion: number | null };

/** `content`: the record's encodeMealContent; `incoming`: its sourceVersion. */
export function stepOfSave(met: MetMeal | undefined, content: string, incoming: number | undefined): SaveStep {
  const stored = met?.sourceVersion;
  const equal = met !== undefined && !met.deleted && isStoredMeal(met.body, content);
  // A retry (the stored version, the stored meal) is done already, not overtaken.
  if (equal && isRetry(incoming, stored)) return { kind: 'unchanged', recordVersion: undefined };
  if (isStaleWrite(incoming, stored)) return { kind: 'stale' };
  if (equal) {
    return { kind: 'unchanged', recordVersion: recordsNewerVersion(incoming, stored) ? incoming : undefined };
  }
  return { kind: met === undefined ? 'created' : 'updated', sourceVersion: keptSourceVersion(incoming, stored) };
}

/** The meal a delete meets: the user's stored row, `foreign` when another user has the id, undefined when none has. */
export type DeleteMet = Pick<MetMeal, 'deleted' | 'sourceVersion'> | 'foreign' | undefined;

/**
 * What one delete does (MealWrites.deleteMeal), decided the same way on every backend:
 * - `answer`: nothing written, `result` said;
 * - `already_deleted`: no change, so no clock step, but when `recordVersion` is set, that version alone;
 * - `tombstone`: the meal becomes a tombstone keeping `sourceVersion`. An id no user has gets
 *   one only with a version, so that an older save arriving later is stale.
 */
export type DeleteStep =
  | { readonly kind: 'answer'; readonly result: Extract<DeleteResult, 'not_found' | 'foreign_id' | 'stale'> }
  | { readonly kind: 'already_deleted'; readonly recordVersion: number | undefined }
  | { readonly kind: 'tombstone'; readonly sourceVersion: number | null };

/** `incoming`: the delete's sourceVersion. Without one, an id that is not the user's is `not_found`. */
export function stepOfDelete(met: DeleteMet, incoming: number | undefined): DeleteStep {
  if (met === 'foreign') return { kind: 'answer', result: incoming === undefined ? 'not_found' : 'foreign_id' };
  if (met === undefined && incoming === undefined) return { kind: 'answer', result: 'not_found' };
  const stored = met?.sourceVersion;
  // A retry of the delete that made this tombstone is done already, not overtaken.
  if (met?.deleted === true && isRetry(incoming, stored)) return { kind: 'already_deleted', recordVersion: undefined };
  if (isStaleWrite(incoming, stored)) return { kind: 'answer', result: 'stale' };
  if (met?.deleted === true) {
    return { kind: 'already_deleted', recordVersion: recordsNewerVersion(incoming, stored) ? incoming : undefined };
  }
  return { kind: 'tombstone', sourceVersion: keptSourceVersion(incoming, stored) };
}

/**
 * saveMeal's answer from the counts of a one-meal write and the meal's modifiedAt after it
 * (the new one, else the one it met).
 */
export function saveAnswer(counts: WriteCounts, modifiedAt: number | undefined): SaveResult {
  const outcome: SaveOutcome =
    counts.created > 0 ? 'created' : counts.updated > 0 ? 'updated' : counts.unchanged > 0 ? 'unchanged' : 'stale';
  if (modifiedAt === undefined) throw new Error('a save of one meal ended without its modifiedAt');
  return { ok: true, outcome, modifiedAt };
}
