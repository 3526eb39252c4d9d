/**
 * The Meal as the contract defines it (docs/api.md#the-call): field names, their order and
 * their types. The order here is the order of every JSON body, CSV header and OpenAPI schema.
 */
export const MEAL_TYPES = ['breakfast', 'lunch', 'dinner', 'snack'] as const;
export type MealType = (typeof MEAL_TYPES)[number];

export const TEXT_FIELDS = ['description', 'title'] as const;
export const NUMERIC_FIELDS = [
  'caloriesTotal',
  'proteins_g',
  'fats_g',
  'carbs_g',
  'fibers_g',
  'sodium_mg',
  'iron_mg',
  'calcium_mg',
] as const;
export type NumericField = (typeof NUMERIC_FIELDS)[number];

/** The 14 fields of a Meal in contract order: the spec's 13, then modifiedAt. */
export const MEAL_FIELDS = ['id', ...TEXT_FIELDS, 'type', 'date', ...NUMERIC_FIELDS, 'modifiedAt'] as const;
export type MealField = (typeof MEAL_FIELDS)[number];

/** The nutrient fields: kilocalories, grams and milligrams, null when unknown. */
export interface MealNutrients {
  readonly caloriesTotal: number | null;
  readonly proteins_g: number | null;
  readonly fats_g: number | null;
  readonly carbs_g: number | null;
  readonly fibers_g: number | null;
  readonly sodium_mg: number | null;
  readonly iron_mg: number | null;
  readonly calcium_mg: number | null;
}

/** A meal's content as recorded: everything but the change clock. */
export interface MealContent extends MealNutrients {
  readonly id: string;
  readonly description: string;
  readonly title: string;
  readonly type: MealType;
  /** Epoch milliseconds: when the meal was eaten. */
  readonly date: number;
}

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
