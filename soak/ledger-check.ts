import { type MealRow, operationOf } from './meal-versions.js';
import type { StoreTruth, StoredMeal } from './store-truth.js';

/** How the store's meals stand against what the app servers were told. */
export interface LedgerCheck {
  readonly meals: number;
  /** Meals holding the newest acknowledged version; holding a newer uncertain one; never written. */
  readonly atAcknowledged: number;
  readonly atUncertain: number;
  readonly neverWritten: number;
  readonly uncertainWrites: number;
  readonly failures: readonly string[];
}

function whyWrong(row: MealRow, stored: StoredMeal | undefined): string | undefined {
  const label = `${row.mealId} (acknowledged v${row.acknowledged}, uncertain ${[...row.uncertain].join(',') || 'none'})`;
  if (stored === undefined) {
    return row.acknowledged < 0 ? undefined : `${label}: the store has no such meal`;
  }
  const version = stored.sourceVersion;
  if (version === null) return `${label}: stored without a sourceVersion`;
  if (version < row.acknowledged) return `${label}: the store holds the older v${version}`;
  if (version > row.acknowledged && !row.uncertain.has(version)) {
    return `${label}: the store holds v${version}, which was never answered nor cut`;
  }
  const operation = operationOf(row.mealId, version);
  if (operation.kind === 'delete') return stored.deleted ? undefined : `${label}: v${version} deleted it, it is live`;
  if (stored.deleted) return `${label}: v${version} saved it, it is deleted`;
  const { title, caloriesTotal } = operation.record;
  if (stored.title !== title || stored.caloriesTotal !== caloriesTotal) {
    return `${label}: v${version} holds ${JSON.stringify({ title: stored.title, caloriesTotal: stored.caloriesTotal })}`;
  }
  return undefined;
}

/**
 * Every meal holds the newest version the service acknowledged, or a newer one whose call was
 * cut (uncertain), and that version's content: docs/host-api.md#ordering-saves-sourceversion.
 */
export function checkLedger(truth: StoreTruth): LedgerCheck {
  const failures: string[] = [];
  let atAcknowledged = 0;
  let atUncertain = 0;
  let neverWritten = 0;
  let uncertainWrites = 0;
  for (const [row, stored] of truth) {
    uncertainWrites += row.uncertain.size;
    const wrong = whyWrong(row, stored);
    if (wrong !== undefined) failures.push(wrong);
    else if (stored === undefined) neverWritten += 1;
    else if (stored.sourceVersion === row.acknowledged) atAcknowledged += 1;
    else atUncertain += 1;
  }
  return { meals: truth.size, atAcknowledged, atUncertain, neverWritten, uncertainWrites, failures };
}
