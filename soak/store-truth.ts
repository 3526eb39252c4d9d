import { mealPath } from '../test/support/host-api.js';
import type { HostClient } from './host-client.js';
import type { MealRow } from './meal-versions.js';

/** A meal as the host API's GET shows it: a Meal or a tombstone, with its `sourceVersion`. */
export interface StoredMeal {
  readonly id: string;
  readonly modifiedAt: string;
  readonly deleted: boolean;
  readonly sourceVersion: number | null;
  readonly [field: string]: unknown;
}

/** Each row of the ledger as the store holds it at the end: undefined for a meal it never had (404). */
export type StoreTruth = Map<MealRow, StoredMeal | undefined>;

/** `GET /host/v1/users/{userId}/meals/{mealId}` of every meal the app servers wrote or may have. */
export async function readStoreTruth(host: HostClient, rows: readonly MealRow[]): Promise<StoreTruth> {
  const truth: StoreTruth = new Map();
  for (const row of rows) {
    const answer = await host.send({ method: 'GET', path: mealPath(row.userId, row.mealId), expected: [200, 404] });
    if (answer.kind !== 'answer' || (answer.status !== 200 && answer.status !== 404)) {
      throw new Error(`GET of ${row.mealId} at the end: ${JSON.stringify(answer)}`);
    }
    truth.set(row, answer.status === 404 ? undefined : (answer.json as StoredMeal));
  }
  return truth;
}

/** Each user's last change (ms): the newest `modifiedAt` among their meals and tombstones. */
export function lastChanges(truth: StoreTruth): Map<string, number> {
  const last = new Map<string, number>();
  for (const [row, stored] of truth) {
    if (stored === undefined) continue;
    last.set(row.userId, Math.max(last.get(row.userId) ?? 0, Date.parse(stored.modifiedAt)));
  }
  return last;
}
