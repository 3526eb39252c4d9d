import { localDateTimeOf } from '../domain/utc-offset.js';
import type { Meal } from './types.js';

/**
 * The person's own day and time of a meal (docs/api.md#the-persons-day): its `date` (UTC) at
 * its `utcOffset`. Null when the app did not record the offset: the meal's day is then not
 * known, and adding it to its UTC day (`meal.date.slice(0, 10)`) is the caller's choice.
 */
type Eaten = Pick<Meal, 'date' | 'utcOffset'>;

/** `YYYY-MM-DD`: the day the meal belongs to where it was eaten, or null. */
export function localDateOf(meal: Eaten): string | null {
  return meal.utcOffset === null ? null : localDateTimeOf(Date.parse(meal.date), meal.utcOffset).date;
}

/** `HH:MM`: the time on the clock where the meal was eaten, or null. */
export function localTimeOf(meal: Eaten): string | null {
  return meal.utcOffset === null ? null : localDateTimeOf(Date.parse(meal.date), meal.utcOffset).time;
}
