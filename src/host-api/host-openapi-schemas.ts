import { OFFSET_INSTANT_INPUT_PATTERN } from '../domain/instant.js';
import type { MealField } from '../domain/meal.js';
import { MEAL_FIELD_TABLE, type MealFieldKind } from '../domain/meal-fields.js';
import { MAX_MEAL_ID_LENGTH } from '../domain/meal-id.js';
import { MAX_SOURCE_VERSION } from '../domain/source-version.js';
import { UTC_OFFSET_PATTERN } from '../domain/utc-offset.js';
import { HOST_STATUS_BY_CODE, type PUBLIC_STATUS_BY_CODE } from '../errors.js';
import { component } from '../openapi/answers.js';
import { errorSchemaOf, instantSchema, liveMealSchema, tombstoneSchema } from '../openapi/schemas.js';

/**
 * The JSON Schemas of the host API's meals and errors (docs/host-api.md#saving-and-deleting-meals):
 * the record a save takes, the meal a read gives, the outcomes of writes. The Meal's fields
 * come from the public document's schemas, so the two documents show one Meal.
 */

/** The public codes the host API answers too; the others (API keys, resync_required) are the public listener's. */
const SHARED_PUBLIC_CODES = [
  'invalid_parameter',
  'bad_request',
  'browser_forbidden',
  'not_found',
  'method_not_allowed',
  'request_too_large',
  'rate_limited',
  'internal_error',
  'unavailable',
] as const satisfies readonly (keyof typeof PUBLIC_STATUS_BY_CODE)[];

export const hostErrorSchema = errorSchemaOf(
  [...SHARED_PUBLIC_CODES, ...Object.keys(HOST_STATUS_BY_CODE)],
  'What is at fault: a query parameter or a path id (userId, mealId) with invalid_parameter, a field of the record with invalid_record.',
  { line: { type: 'integer', minimum: 1, description: 'The import only: the number (from 1) of the line at fault.' } },
);

/** An id of the path or of a record: the rules of a meal id (domain/meal-id.ts). */
export const mealIdSchema = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_MEAL_ID_LENGTH,
  // \p{Cc} spelt out: C0 controls, DEL and C1 controls, readable without the u flag.
  pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]+$',
  description: `The meal's id, chosen by the app and unique across all users: 1 to ${MAX_MEAL_ID_LENGTH} characters, no control characters.`,
} as const;

export const sourceVersionSchema = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_SOURCE_VERSION,
  description:
    "The version of this save, from the app's own data (a row version, an update time in ms): a write whose version is not greater than the one stored for the meal changes nothing and is answered stale (docs/host-api.md#ordering-saves-sourceversion).",
} as const;

// The Meal's field schemas of the public document, by name (schemas.ts makes them from the table).
const mealFields: Readonly<Record<string, object | undefined>> = liveMealSchema.properties;
function publicSchemaOf(name: MealField): object {
  const schema = mealFields[name];
  if (schema === undefined) throw new Error(`the Meal has no ${name}`);
  return schema;
}

/** What a record may give for each kind of field (domain/meal-fields.ts); the store sets the clock. */
const RECORD_KIND_SCHEMAS: Readonly<Record<Exclude<MealFieldKind, 'id' | 'clock'>, (name: MealField) => object>> = {
  text: (name) => ({
    type: ['string', 'null'],
    maxLength: 10_000,
    description: `Free text, at most 10,000 characters; absent or null is "". ${name === 'title' ? 'A title' : 'What was eaten'}.`,
  }),
  type: publicSchemaOf,
  instant: () => ({
    type: 'string',
    pattern: OFFSET_INSTANT_INPUT_PATTERN,
    description:
      'When the meal was eaten: an ISO 8601 date-time with its offset from UTC, such as 2025-03-14T12:15:00Z or 2025-03-14T13:15:00+01:00. One without (2025-03-14T12:15:00, a naive clock) is 422 invalid_record naming date, never taken as UTC.',
  }),
  offset: () => ({
    type: ['string', 'null'],
    pattern: UTC_OFFSET_PATTERN,
    description:
      "The offset from UTC of the local time the meal was eaten at, ±HH:MM (at most 14 hours): the person's day is date plus it. Absent or null: the offset written in date when it is numeric (2025-03-14T19:30:00-08:00 gives -08:00), else null (Z names the instant, not where the person was). Anything else (+15:00, +9, Z) is 422 invalid_record naming utcOffset.",
    examples: ['+09:00', '-08:00'],
  }),
  number: (name) => ({ ...publicSchemaOf(name), minimum: 0 }),
};

// The record's fields in the Meal's order, then the version of the save.
const recordProperties = Object.fromEntries([
  ...MEAL_FIELD_TABLE.flatMap((field) =>
    field.kind === 'id' || field.kind === 'clock' ? [] : [[field.name, RECORD_KIND_SCHEMAS[field.kind](field.name)]],
  ),
  ['sourceVersion', { ...sourceVersionSchema, type: ['integer', 'null'] }],
]);

// The read-only fields a GET answers, taken back so that a meal read can be saved as it is
// (docs/host-api.md#a-meal-read-and-saved-back).
const readBackProperties = {
  modifiedAt: { type: 'string', description: 'Read-only, as a GET answers it: ignored (the store sets it).' },
  deleted: { type: 'boolean', enum: [false], description: 'Read-only, as a GET answers a live meal: only false.' },
} as const;
const requiredRecordFields = MEAL_FIELD_TABLE.filter((field) => field.required).map((field) => field.name);

/** The body of a save: a Meal's fields, and the version; its id is the path's, and the store sets modifiedAt. */
export const mealRecordSchema = {
  type: 'object',
  description: `A meal as the app records it. ${requiredRecordFields.join(' and ')} are required; a field not listed here is refused (422 invalid_record naming it). A meal a GET answered saves back as it is.`,
  properties: {
    id: {
      ...mealIdSchema,
      description: "Read-only, as a GET answers it: the path's mealId, else 422 invalid_record naming id.",
    },
    ...recordProperties,
    ...readBackProperties,
  },
  required: requiredRecordFields,
  additionalProperties: false,
} as const;

/** One line of an import: a record with its id. */
export const importRecordSchema = {
  ...mealRecordSchema,
  description: 'One line of an import: a meal record with its id.',
  properties: { id: mealIdSchema, ...recordProperties, ...readBackProperties },
  required: ['id', ...requiredRecordFields],
} as const;

const storedVersion = {
  type: ['integer', 'null'],
  minimum: 0,
  maximum: MAX_SOURCE_VERSION,
  description: 'The newest version a write gave the meal (deletes included); null when none gave one.',
} as const;

/** GET of a live meal: the Meal of /v1/meals with includeDeleted=true, and its version. */
export const storedLiveMealSchema = {
  ...liveMealSchema,
  properties: {
    ...liveMealSchema.properties,
    deleted: { type: 'boolean', enum: [false], description: 'A live meal.' },
    sourceVersion: storedVersion,
  },
  required: [...liveMealSchema.required, 'deleted', 'sourceVersion'],
} as const;

/** GET of a deleted meal: its tombstone, and its version. */
export const storedTombstoneSchema = {
  ...tombstoneSchema,
  properties: { ...tombstoneSchema.properties, sourceVersion: storedVersion },
  required: [...tombstoneSchema.required, 'sourceVersion'],
} as const;

export const storedMealSchema = {
  description: 'A live meal or a tombstone, told apart by deleted.',
  anyOf: [{ $ref: '#/components/schemas/StoredLiveMeal' }, { $ref: '#/components/schemas/StoredTombstone' }],
} as const;

const outcomeOf = (outcomes: readonly string[], description: string) => ({
  type: 'string',
  enum: [...outcomes],
  description,
});

export const savedMealSchema = {
  type: 'object',
  properties: {
    id: mealIdSchema,
    outcome: outcomeOf(
      ['created', 'updated', 'unchanged', 'stale'],
      'unchanged: the record equals the live meal (nothing written, no change in the feed); stale: the stored version is as new or newer (nothing written).',
    ),
    modifiedAt: {
      ...instantSchema,
      description: "The meal's modifiedAt after the call: the stored one when unchanged or stale.",
    },
  },
  required: ['id', 'outcome', 'modifiedAt'],
  additionalProperties: false,
} as const;

export const deletedMealSchema = {
  type: 'object',
  properties: {
    id: mealIdSchema,
    outcome: outcomeOf(
      ['deleted', 'unchanged', 'stale'],
      'unchanged: the meal was deleted already; stale: the stored version is as new or newer (nothing written).',
    ),
  },
  required: ['id', 'outcome'],
  additionalProperties: false,
} as const;

const count = (description: string) => ({ type: 'integer', minimum: 0, description });

export const importedMealsSchema = {
  type: 'object',
  properties: {
    imported: count('Records read: the sum of the four below.'),
    created: count('New meals (a deleted one brought back counts as updated).'),
    updated: count('Meals changed, deleted ones brought back included.'),
    unchanged: count('Records equal to the live meal (a retry with the stored version included): nothing written.'),
    stale: count('Records whose version is not newer than the stored one: nothing written.'),
  },
  required: ['imported', 'created', 'updated', 'unchanged', 'stale'],
  additionalProperties: false,
} as const;

/** One line of the app's history: an ImportRecord and the user it is for. */
export const historyRecordSchema = {
  ...importRecordSchema,
  description: "One line of the app's history: a meal record with its id and its user.",
  properties: {
    userId: { ...mealIdSchema, description: 'The user the meal is for: 1 to 200 characters, no control characters.' },
    ...importRecordSchema.properties,
  },
  required: ['userId', ...importRecordSchema.required],
} as const;

export const importedHistorySchema = {
  ...importedMealsSchema,
  properties: {
    ...importedMealsSchema.properties,
    batches: count('Batches committed, each of whole users, each a change of its users of its own.'),
  },
  required: [...importedMealsSchema.required, 'batches'],
} as const;

const STORED_LIVE_MEAL = component('StoredLiveMeal', storedLiveMealSchema);
const STORED_TOMBSTONE = component('StoredTombstone', storedTombstoneSchema);

/** The components of the meals' bodies and answers, which their operations name. */
export const MEAL_COMPONENTS = {
  MealRecord: component('MealRecord', mealRecordSchema),
  ImportRecord: component('ImportRecord', importRecordSchema),
  StoredMeal: component('StoredMeal', storedMealSchema, [STORED_LIVE_MEAL, STORED_TOMBSTONE]),
  SavedMeal: component('SavedMeal', savedMealSchema),
  DeletedMeal: component('DeletedMeal', deletedMealSchema),
  ImportedMeals: component('ImportedMeals', importedMealsSchema),
  HistoryRecord: component('HistoryRecord', historyRecordSchema),
  ImportedHistory: component('ImportedHistory', importedHistorySchema),
};

/** The body of every refusal, which every operation's errors name (`Error`, as the public document's). */
export const HOST_ERROR = component('Error', hostErrorSchema);
