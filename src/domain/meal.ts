/**
 * The Meal inside the service: the types of the table of Meal fields (meal-fields.ts), and the
 * shapes a write and a read give them.
 */
import {
  fieldsOfKind,
  MEAL_FIELDS,
  MEAL_TYPES,
  type MealField,
  type MealFieldValues,
  type MealType,
} from './meal-fields.js';

export { MEAL_FIELDS, MEAL_TYPES, type MealField, type MealType };

export const NUMERIC_FIELDS = fieldsOfKind('number');
export type NumericField = (typeof NUMERIC_FIELDS)[number];

/** The nutrient fields: kilocalories, grams and milligrams, null when unknown. */
export type MealNutrients = Pick<MealFieldValues, NumericField>;

/**
 * A meal's content as recorded: everything but the change clock. `date` is epoch
 * milliseconds (when the meal was eaten); `utcOffset` the local offset it was eaten at.
 */
export type MealContent = Omit<MealFieldValues, 'modifiedAt'>;

/**
 * A meal as a write records it: its content and, optionally, the version the app's back end
 * gives this save (domain/source-version.ts), which orders saves that race or arrive late.
 */
export interface MealSave extends MealContent {
  readonly sourceVersion?: number | undefined;
}

/** A live meal with its place on the user's change clock. */
export interface Meal extends MealContent {
  /** Epoch milliseconds of the meal's last change. */
  readonly modifiedAt: number;
}

/** The position of a change in one user's feed: (modifiedAt, id), the sort key of /v1/meals. */
export interface FeedPosition {
  readonly modifiedAt: number;
  readonly id: string;
}

export function isMealType(value: unknown): value is MealType {
  return typeof value === 'string' && (MEAL_TYPES as readonly string[]).includes(value);
}
