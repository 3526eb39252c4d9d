import { formatInstant } from './instant.js';
import type { Meal } from './meal.js';

/**
 * The JSON text of a meal as /v1/meals sends it: the 14 contract fields in order. Stored with
 * the meal at write time, so a read sends it as it is, with no per-request serialisation.
 */
export function encodeMeal(meal: Meal): string {
  return JSON.stringify({
    id: meal.id,
    description: meal.description,
    title: meal.title,
    type: meal.type,
    date: formatInstant(meal.date),
    caloriesTotal: meal.caloriesTotal,
    proteins_g: meal.proteins_g,
    fats_g: meal.fats_g,
    carbs_g: meal.carbs_g,
    fibers_g: meal.fibers_g,
    sodium_mg: meal.sodium_mg,
    iron_mg: meal.iron_mg,
    calcium_mg: meal.calcium_mg,
    modifiedAt: formatInstant(meal.modifiedAt),
  });
}

/** A deleted meal with includeDeleted=true: exactly `{ "id", "modifiedAt", "deleted": true }`. */
export function encodeTombstone(id: string, modifiedAt: number): string {
  return JSON.stringify({ id, modifiedAt: formatInstant(modifiedAt), deleted: true });
}

/**
 * With includeDeleted=true a live meal carries `"deleted": false` after modifiedAt: its stored
 * JSON with the closing brace replaced by this. Storage adapters apply it in the query.
 */
export const LIVE_MEAL_DELETED_SUFFIX = ',"deleted":false}';

/** Reads back the JSON text of a live meal (for exports, which need the fields). */
export function decodeMeal(json: string): Meal {
  const raw = JSON.parse(json) as Record<string, unknown> & { date: string; modifiedAt: string };
  return { ...(raw as unknown as Meal), date: Date.parse(raw.date), modifiedAt: Date.parse(raw.modifiedAt) };
}
