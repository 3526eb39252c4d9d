import { MEAL_FIELDS, MEAL_TYPES, type MealField } from '../domain/meal.js';
import { MEAL_FIELD_TABLE, type MealFieldKind } from '../domain/meal-fields.js';
import { UTC_OFFSET_PATTERN } from '../domain/utc-offset.js';

/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses) both documents give: the Meal and its tombstone,
 * whose field names, order and words come from the table of Meal fields (domain/meal-fields.ts),
 * the same source the encoder uses; the error body; the instant; the health check's and the
 * document's own bodies. The tests check real answers against them.
 */
/** An instant as the service writes one: `YYYY-MM-DDTHH:mm:ss.sssZ`. */
export const instantSchema = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
};

/** The JSON Schema of each kind of Meal field (domain/meal-fields.ts), as /v1/meals sends it. */
const KIND_SCHEMAS: Readonly<Record<MealFieldKind, object>> = {
  id: { type: 'string', minLength: 1 },
  text: { type: 'string' },
  type: { type: 'string', enum: [...MEAL_TYPES] },
  instant: instantSchema,
  offset: { type: ['string', 'null'], pattern: UTC_OFFSET_PATTERN },
  number: { type: ['number', 'null'] },
  clock: instantSchema,
};

const MEAL_FIELD_SCHEMAS = Object.fromEntries(
  MEAL_FIELD_TABLE.map((field) => [
    field.name,
    { ...KIND_SCHEMAS[field.kind], description: field.description, examples: field.examples },
  ]),
) as Readonly<Record<MealField, object>>;

const mealProperties = Object.fromEntries(MEAL_FIELDS.map((field) => [field, MEAL_FIELD_SCHEMAS[field]]));

/**
 * An item of a page that is not a tombstone: a Meal, with `deleted: false` when the request has
 * includeDeleted=true. The page's items are this or a Tombstone, so that `deleted` can be read
 * on every item of the union a client generator makes (`item.deleted === true`: a tombstone).
 * `deleted` is a boolean with a one-value enum, not a `const`: openapi-python-client renders an
 * optional boolean `const` as code that does not parse (docs/api.md#generating-a-client), while
 * openapi-typescript still makes `deleted?: false` and `deleted: true` of it.
 */
const liveDeletedSchema = {
  type: 'boolean',
  enum: [false],
  description: 'Present (false) only when the request has includeDeleted=true.',
} as const;
const tombstoneDeletedSchema = { type: 'boolean', enum: [true] } as const;

export const liveMealSchema = {
  type: 'object',
  properties: {
    ...mealProperties,
    deleted: liveDeletedSchema,
  },
  required: [...MEAL_FIELDS],
  additionalProperties: false,
} as const;

export const tombstoneSchema = {
  type: 'object',
  properties: { id: MEAL_FIELD_SCHEMAS.id, modifiedAt: instantSchema, deleted: tombstoneDeletedSchema },
  required: ['id', 'modifiedAt', 'deleted'],
  additionalProperties: false,
} as const;

/**
 * The error body of a listener whose codes are `codes`: the public API's, or the host API's,
 * whose errors add `line` (host-api/host-openapi-schemas.ts).
 */
export function errorSchemaOf(
  codes: readonly string[],
  paramDescription: string,
  more: Readonly<Record<string, object>> = {},
) {
  return {
    type: 'object',
    properties: {
      error: {
        type: 'object',
        properties: {
          message: { type: 'string' },
          code: { type: 'string', enum: [...codes] },
          param: { type: 'string', description: paramDescription },
          ...more,
        },
        required: ['message', 'code'],
        additionalProperties: false,
      },
    },
    required: ['error'],
    additionalProperties: false,
  } as const;
}

/** The body of /healthz and /readyz when they answer 200. */
export const okSchema = {
  type: 'object',
  properties: { ok: { const: true } },
  required: ['ok'],
  additionalProperties: false,
} as const;

/** The body of /v1/openapi.json, as far as a client needs to know it before reading it. */
export const openApiDocumentSchema = {
  type: 'object',
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
    info: { type: 'object' },
    paths: { type: 'object' },
  },
  required: ['openapi', 'info', 'paths'],
} as const;
