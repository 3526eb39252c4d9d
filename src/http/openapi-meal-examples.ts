import type { MealJson } from '../domain/meal-json.js';

/**
 * The meals of the public document's examples, typed so that a new Meal field must appear in
 * them. East of UTC: breakfast at 08:30 in Paris on the 14th. West: dinner at 20:10 in Denver
 * on the 14th, which is the 15th in UTC: the person's day is date plus utcOffset.
 */
export const SAMPLE_MEAL = {
  id: 'm_01J9ZQ4W8K',
  description: 'Oatmeal with blueberries',
  title: 'Breakfast',
  type: 'breakfast',
  date: '2025-03-14T07:30:00.000Z',
  utcOffset: '+01:00',
  caloriesTotal: 350,
  proteins_g: 12.5,
  fats_g: 7,
  carbs_g: 58,
  fibers_g: 8,
  sodium_mg: null,
  iron_mg: 2.1,
  calcium_mg: 120,
  modifiedAt: '2025-03-14T07:31:02.118Z',
} satisfies MealJson;
export const SAMPLE_WEST_MEAL = {
  id: 'm_01J9ZR0D3N',
  description: 'Salmon, rice and green beans',
  title: 'Dinner',
  type: 'dinner',
  date: '2025-03-15T03:10:00.000Z',
  utcOffset: '-07:00',
  caloriesTotal: 640,
  proteins_g: 38,
  fats_g: 22,
  carbs_g: 61,
  fibers_g: 6,
  sodium_mg: 540,
  iron_mg: null,
  calcium_mg: null,
  modifiedAt: '2025-03-15T03:12:45.530Z',
} satisfies MealJson;
