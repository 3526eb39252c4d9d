import { isStoredMeal } from '../domain/meal-json.js';
import { isStaleWrite, keptSourceVersion, recordsNewerVersion } from '../domain/source-version.js';
import type { WriteCounts } from './foreign-meal.js';
import type { SaveOutcome, SaveResult } from './meal-writes.js';

/** The meal a save meets: the user's stored row, or what an earlier record of the same call left. */
export interface MetMeal {
  readonly modifiedAt: number;
  readonly deleted: boolean;
  readonly body: string;
  readonly sourceVersion: number | null;
}

/**
 * What one save does (storage/meal-writes.ts), decided the same way on every backend so that
 * the rules of domain/source-version.ts are applied in one place:
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
  if (isStaleWrite(incoming, stored)) return { kind: 'stale' };
  if (met !== undefined && !met.deleted && isStoredMeal(met.body, content)) {
    return { kind: 'unchanged', recordVersion: recordsNewerVersion(incoming, stored) ? incoming : undefined };
  }
  return { kind: met === undefined ? 'created' : 'updated', sourceVersion: keptSourceVersion(incoming, stored) };
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
