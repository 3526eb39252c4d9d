import type { Meal } from '../src/client/index.js';
import type { FollowerState } from './follower.js';
import type { StoreTruth } from './store-truth.js';

/** A meal's fields but `deleted` and `sourceVersion`, as one comparable text. */
function comparable(meal: object): string {
  const fields = Object.entries(meal).filter(([name]) => name !== 'deleted' && name !== 'sourceVersion');
  return JSON.stringify(fields.sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * What differs between a follower's copy and the store's live meals of its user, as the host
 * API shows them: empty when the copy is exact.
 */
export function copyDifferences(follower: FollowerState, truth: StoreTruth): string[] {
  const live = new Map<string, Readonly<Record<string, unknown>>>();
  for (const [row, stored] of truth) {
    if (row.userId === follower.userId && stored !== undefined && !stored.deleted) live.set(stored.id, stored);
  }
  const differences: string[] = [];
  for (const [id, stored] of live) {
    const held: Meal | undefined = follower.copy.get(id);
    if (held === undefined) differences.push(`${id} missing`);
    else if (comparable(held) !== comparable(stored)) differences.push(`${id} differs`);
  }
  for (const id of follower.copy.keys()) if (!live.has(id)) differences.push(`${id} held, not live`);
  return differences;
}
