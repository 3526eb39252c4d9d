import type { Meal, MealContent } from '../../src/domain/meal.js';

/**
 * The documented shapes written out here, independently of src/, so that a test comparing
 * src's output with them fails if src drifts from docs/api.md#the-call.
 */
export const CONTRACT_MEAL_FIELDS: readonly string[] = [
  'id',
  'description',
  'title',
  'type',
  'date',
  'utcOffset',
  'caloriesTotal',
  'proteins_g',
  'fats_g',
  'carbs_g',
  'fibers_g',
  'sodium_mg',
  'iron_mg',
  'calcium_mg',
  'modifiedAt',
];
export const ENVELOPE_FIELDS: readonly string[] = [
  'ok',
  'userId',
  'lastModifiedSince',
  'count',
  'meals',
  'hasMore',
  'nextCursor',
];
export const ISO_MS_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A meal with every kind of value: quotes, a comma, non-ASCII, empty text, nulls, a zero. */
export const SAMPLE_MEAL: Meal = {
  id: 'm_1',
  description: 'rice, "beans" and é',
  title: '',
  type: 'lunch',
  date: Date.UTC(2025, 2, 1, 12, 30),
  utcOffset: '-08:00',
  caloriesTotal: 512.5,
  proteins_g: null,
  fats_g: 10,
  carbs_g: 0,
  fibers_g: null,
  sodium_mg: 300.5,
  iron_mg: null,
  calcium_mg: 120,
  modifiedAt: Date.UTC(2025, 2, 2, 8, 0, 0, 7),
};

/** Every nutrient unknown: the eight number fields, all null. */
export const NO_NUTRIENTS = {
  caloriesTotal: null,
  proteins_g: null,
  fats_g: null,
  carbs_g: null,
  fibers_g: null,
  sodium_mg: null,
  iron_mg: null,
  calcium_mg: null,
} as const;

/** A meal as a store takes it, with every nutrient unknown: for tests where only its id and change matter. */
export function plainMeal(id: string, fields: Partial<MealContent> = {}): MealContent {
  return {
    id,
    description: '',
    title: `meal ${id}`,
    type: 'dinner',
    date: Date.UTC(2025, 5, 1, 19),
    utcOffset: null,
    ...NO_NUTRIENTS,
    ...fields,
  };
}
