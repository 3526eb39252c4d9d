import { createInstantFormatter, formatInstant } from './instant.js';
import { encodeContent } from './meal-encoder.js';
import type { Meal, MealContent } from './meal.js';
import { MEAL_FIELD_TABLE, type MealFieldJson } from './meal-fields.js';

// The modifiedAt values of one write are consecutive milliseconds: a formatter of their own
// keeps its one-second cache warm, which the random `date` values would keep evicting.
const formatModifiedAt = createInstantFormatter();

/**
 * The JSON text of a meal as /v1/meals sends it: the contract fields in MEAL_FIELDS order
 * (test/domain/meal-json.test.ts holds it to that order and to JSON.stringify's output).
 * Stored with the meal at write time, so a read sends it as it is, with no per-request
 * serialisation; the template is made from the table of Meal fields (meal-encoder.ts).
 */
export function encodeMeal(meal: MealContent, modifiedAt: number): string {
  return encodeMealAt(encodeMealContent(meal), modifiedAt);
}

/**
 * The JSON text of a meal up to its modifiedAt value, which is all of it a record decides:
 * encodeMeal's text is this, the modifiedAt and `"}`. A write encodes it once, compares it
 * with the stored meal (isStoredMeal), then places it on the clock (encodeMealAt) only when
 * it changed.
 */
export function encodeMealContent(meal: MealContent): string {
  return encodeContent(meal);
}

/**
 * What ends a meal's JSON text after its modifiedAt value: the closing quote and brace. Written
 * here alone, for encodeMealAt and for PostgreSQL's writes, which place a meal on the clock
 * themselves (storage/postgres/postgres-functions-decision.ts, postgres-batch-statement.ts).
 */
export const MEAL_JSON_END = '"}';

/** encodeMeal's text from encodeMealContent's: the meal at its place on the change clock. */
export function encodeMealAt(content: string, modifiedAt: number): string {
  return `${content}${formatModifiedAt(modifiedAt)}${MEAL_JSON_END}`;
}

/**
 * True when `body`, a live meal's stored JSON (encodeMeal's text), holds exactly this content
 * (encodeMealContent's text): equal in every Meal field, as the API sends it (docs/cli.md
 *: a record equal to the user's live meal is no change). The content is everything
 * before the modifiedAt value, so a body that starts with it has those very fields. Each
 * field has one written form, so equal text is equal fields: null is not 0, "" is not other
 * text, dates are compared to the millisecond; only -0 and 0 meet, as in any JSON.
 */
export function isStoredMeal(body: string, content: string): boolean {
  // Not startsWith: V8's compares character by character, 0.3-1 us more per meal than this
  // memcmp-like equality of a slice (measured on 200 k meals of ~330 characters).
  return body.length > content.length && body.slice(0, content.length) === content;
}

/**
 * A tombstone's JSON text before and after its modifiedAt value: JSON.stringify's text of
 * `{ id, modifiedAt, deleted: true }`, the instant needing no escape. Apart, so that
 * PostgreSQL's one-statement delete, which places the tombstone on the clock itself, takes the
 * id's escaping from here (storage/postgres/postgres-functions-decision.ts).
 */
export function tombstoneAround(id: string): readonly [head: string, end: string] {
  return [`{"id":${JSON.stringify(id)},"modifiedAt":"`, '","deleted":true}'];
}

/** A deleted meal with includeDeleted=true: exactly `{ "id", "modifiedAt", "deleted": true }`. */
export function encodeTombstone(id: string, modifiedAt: number): string {
  const [head, end] = tombstoneAround(id);
  return `${head}${formatInstant(modifiedAt)}${end}`;
}

/**
 * With includeDeleted=true a live meal carries `"deleted": false` after modifiedAt: its stored
 * JSON with the closing brace replaced by this. Storage adapters apply it in the query.
 */
export const LIVE_MEAL_DELETED_SUFFIX = ',"deleted":false}';

/** A live meal as its JSON text carries it (docs/api.md#the-call): instants as strings. */
export type MealJson = MealFieldJson;

/**
 * A meal's JSON form as the domain's Meal (exports, and the copies `pull` keeps). A field a
 * copy made before it existed lacks is taken as null, as the store's own rewrite of old
 * bodies makes it (docs/api.md#the-persons-day).
 */
export function mealFromJson(json: MealJson): Meal {
  const meal: Record<string, unknown> = {};
  for (const { name, kind } of MEAL_FIELD_TABLE) {
    const value: unknown = json[name];
    meal[name] = kind === 'instant' || kind === 'clock' ? Date.parse(value as string) : (value ?? null);
  }
  return meal as unknown as Meal;
}

/** Reads back the JSON text of a live meal (for exports, which need the fields). */
export function decodeMeal(text: string): Meal {
  return mealFromJson(JSON.parse(text) as MealJson);
}
