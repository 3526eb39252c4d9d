import type { MealContent } from '../../src/domain/meal.js';
import { parseMealRecord } from '../../src/meals-io/meal-record.js';

// Records and user ids no other test (nor another test process) uses.

let mealCounter = 0;
/** A complete import record with distinct values. */
export function makeMeal(id?: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  mealCounter += 1;
  return {
    id: id ?? `m_${process.pid}_${Date.now().toString(36)}_${mealCounter}`,
    description: `description ${mealCounter}`,
    title: `title ${mealCounter}`,
    type: ['breakfast', 'lunch', 'dinner', 'snack'][mealCounter % 4],
    date: new Date(Date.UTC(2025, 2, 1, 12) + mealCounter * 60_000).toISOString(),
    // East and west of UTC, and unknown: every record carries the field a consumer adds days by.
    utcOffset: ['+01:00', '-05:00', null, '+09:00'][mealCounter % 4],
    caloriesTotal: 400.5 + mealCounter,
    proteins_g: 20.25,
    fats_g: 10.5,
    carbs_g: 50.75,
    fibers_g: 5,
    sodium_mg: 300.5,
    iron_mg: 2.25,
    calcium_mg: 120,
    ...overrides,
  };
}

let userCounter = 0;
/** A user id no other test uses. */
export function newUserId(prefix = 'u'): string {
  userCounter += 1;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${userCounter}`;
}

/** The meal a store takes for a record, as an import reads it (every field, utcOffset included). */
export function contentOf(record: Record<string, unknown>): MealContent {
  const result = parseMealRecord(record, 'json');
  if (!result.ok) throw new Error(result.message);
  return result.meal;
}
