/**
 * A copy's own `Meals-Digest` (docs/api.md#verifying-a-copy-meals-digest), kept beside it and
 * moved with each meal the copy adds, replaces or removes, so comparing it with the header of
 * a caught-up page costs nothing however large the copy. The term and the sum are the
 * service's own code (domain/meals-digest.ts).
 *
 *   const digest = createMealsDigest();
 *   // a meal upserted: digest.remove(old.id, old.modifiedAt) if it was there, then digest.add(meal.id, meal.modifiedAt)
 *   // a tombstone: digest.remove(old.id, old.modifiedAt) if it was there
 *   if (step.digest !== null && !digest.equals(step.digest)) { ... start again from the beginning }
 */
import {
  DigestChange,
  EMPTY_DIGEST,
  formatMealsDigest,
  type MealsDigest,
  sameMealsDigest,
} from '../domain/meals-digest.js';

export type { MealsDigest };
export { formatMealsDigest, parseMealsDigest } from '../domain/meals-digest.js';

export interface RunningMealsDigest {
  /** A meal is in the copy now, with this modifiedAt (as the API wrote it, or a Date). */
  add(id: string, modifiedAt: string | Date): void;
  /** A meal the copy held with this modifiedAt is gone from it (deleted, or about to be replaced). */
  remove(id: string, modifiedAt: string | Date): void;
  /** The copy's count and sum now. */
  readonly value: MealsDigest;
  /** True when `other` (a page's, parsed) has the same count and sum: the copy holds exactly its meals. */
  equals(other: MealsDigest): boolean;
  /** The header's text: `count=<n>, sum=<32 lowercase hex digits>`, to save beside the copy. */
  toString(): string;
}

// The term hashes the text, so only the API's own form gives the server's term: another
// spelling of the same instant would make every check fail, and every rebuild with it.
const API_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function instantOf(modifiedAt: string | Date): string | number {
  const ms = modifiedAt instanceof Date ? modifiedAt.getTime() : undefined;
  if (ms !== undefined && !Number.isNaN(ms)) return ms;
  if (typeof modifiedAt === 'string' && API_INSTANT.test(modifiedAt)) return modifiedAt;
  throw new RangeError(`modifiedAt must be a Date or YYYY-MM-DDTHH:mm:ss.sssZ, got ${String(modifiedAt)}`);
}

/**
 * A digest starting empty, or at `start` (a value saved with the copy, read back by
 * parseMealsDigest). Kept by a copy made from the beginning and then following with
 * includeDeleted=true, it equals every caught-up page's `Meals-Digest` (`SyncStep.digest`).
 */
export function createMealsDigest(start: MealsDigest = EMPTY_DIGEST): RunningMealsDigest {
  const change = new DigestChange();
  return {
    add(id, modifiedAt) {
      change.add(id, instantOf(modifiedAt));
    },
    remove(id, modifiedAt) {
      change.remove(id, instantOf(modifiedAt));
    },
    get value() {
      return change.applyTo(start);
    },
    equals(other) {
      return sameMealsDigest(change.applyTo(start), other);
    },
    toString() {
      return formatMealsDigest(change.applyTo(start));
    },
  };
}
