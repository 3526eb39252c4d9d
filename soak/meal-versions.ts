import { createHash } from 'node:crypto';
import { hostRecord } from '../test/support/host-api.js';

/**
 * The app's back end's rows, as the soak keeps them: each meal's version column (moved on every
 * save or delete), and what the service answered for each version sent. A version's operation
 * is a function of the meal and the version, so a late retry of version v sends what v sent.
 */

export type MealOperation =
  { readonly kind: 'put'; readonly record: Record<string, unknown> } | { readonly kind: 'delete' };

export interface MealRow {
  readonly userId: string;
  readonly mealId: string;
  /** The last version handed out: the back end's version column. */
  version: number;
  /** The greatest version the service answered for (any outcome): it holds that one or a newer. */
  acknowledged: number;
  /** Versions sent whose call got no answer (a cut connection): each may or may not be in. */
  readonly uncertain: Set<number>;
}

/** About one version in five is a delete. */
export function operationOf(mealId: string, version: number): MealOperation {
  const byte = createHash('sha256').update(`${mealId}:${version}`).digest()[0] ?? 0;
  if (byte % 5 === 0) return { kind: 'delete' };
  return {
    kind: 'put',
    record: hostRecord({
      title: `${mealId} v${version}`,
      caloriesTotal: version,
      date: new Date(Date.UTC(2026, 10, 1 + (byte % 27), 7 + (byte % 14), 30)).toISOString(),
    }),
  };
}

export interface MealLedger {
  readonly rows: readonly MealRow[];
  /** A meal at random, its next version handed out. */
  nextWrite(random: () => number): { row: MealRow; version: number };
  /** The service answered version `version` (created, updated, deleted, unchanged or stale). */
  acknowledge(row: MealRow, version: number): void;
  uncertain(row: MealRow, version: number): void;
}

export function createMealLedger(userIds: readonly string[], mealsPerUser: number): MealLedger {
  const rows: MealRow[] = [];
  for (const userId of userIds) {
    for (let i = 1; i <= mealsPerUser; i += 1) {
      rows.push({ userId, mealId: `${userId}-m${i}`, version: 0, acknowledged: -1, uncertain: new Set() });
    }
  }
  return {
    rows,
    nextWrite(random) {
      const row = rows[Math.floor(random() * rows.length)] ?? rows[0];
      if (row === undefined) throw new Error('no meals');
      row.version += 1;
      return { row, version: row.version };
    },
    acknowledge(row, version) {
      row.acknowledged = Math.max(row.acknowledged, version);
    },
    uncertain(row, version) {
      row.uncertain.add(version);
    },
  };
}
