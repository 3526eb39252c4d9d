import { sourceVersionFault } from '../domain/source-version.js';
import { error, errorExample } from '../http/openapi-responses.js';
import { MAX_IMPORT_BYTES, NDJSON_TYPES } from './host-body.js';
import {
  BODY_MISSING,
  BODY_NOT_JSON,
  BODY_OF_ANOTHER_TYPE,
  badRequest,
  getAndHead,
  INVALID_USER_ID,
  invalidRecord,
  jsonTooLarge,
  lineExample,
  notFound,
  operationOf,
  pathItem,
  success,
  UNKNOWN_QUERY_PARAMETER,
} from './host-openapi-answers.js';
import { mealIdSchema, sourceVersionSchema, USER_ID_PARAMETER } from './host-openapi-schemas.js';

/**
 * The meals of a user in the host API's document (docs/host-api.md#saving-and-deleting-meals,
 * docs/host-api.md#importing-many-meals): one meal saved, read or deleted by its id, and many
 * imported in one transaction.
 */

const MEALS = ['Meals'];

const MEAL_ID_PARAMETER = {
  name: 'mealId',
  in: 'path',
  required: true,
  description:
    "The meal's id, percent-encoded in the path (a%2Fb is the id a/b): 1 to 200 characters, no control characters, else 400 invalid_parameter naming mealId.",
  schema: mealIdSchema,
  example: 'm_01J9ZQ4W8K',
};

const INVALID_MEAL_ID = errorExample(
  'invalid_parameter',
  'mealId must be at most 200 characters.',
  'mealId',
  'invalid_mealId',
);
const ID_TAKEN_EXAMPLE = errorExample('id_taken', 'The meal id "m_01J9ZQ4W8K" belongs to another user.');
const ID_TAKEN = error('id_taken: the id is the meal of another user. Nothing was written.', {}, ID_TAKEN_EXAMPLE);

// Lunch at 13:15 in Paris: the offset written in date is the meal's utcOffset.
const RECORD = {
  title: 'Lunch',
  description: 'Chicken salad with bread',
  type: 'lunch',
  date: '2025-03-14T13:15:00+01:00',
  caloriesTotal: 520,
  proteins_g: 38,
  fats_g: 22,
  carbs_g: 31,
  fibers_g: 6,
  sodium_mg: 890,
  iron_mg: 2.4,
  calcium_mg: null,
};
const STORED_MEAL = {
  id: 'm_01J9ZQ4W8K',
  description: RECORD.description,
  title: RECORD.title,
  type: RECORD.type,
  date: '2025-03-14T12:15:00.000Z',
  utcOffset: '+01:00',
  caloriesTotal: 520,
  proteins_g: 38,
  fats_g: 22,
  carbs_g: 31,
  fibers_g: 6,
  sodium_mg: 890,
  iron_mg: 2.4,
  calcium_mg: null,
  modifiedAt: '2025-03-14T12:16:03.512Z',
  deleted: false,
  sourceVersion: 17,
};
const saved = (outcome: string, summary: string) => ({
  summary,
  value: { id: STORED_MEAL.id, outcome, modifiedAt: STORED_MEAL.modifiedAt },
});

const saveMeal = operationOf({
  operationId: 'saveMeal',
  tags: MEALS,
  summary: "Creates or replaces one of the user's meals.",
  description:
    'The record replaces the meal whole: a field left out is "" or null. The same record again is unchanged and writes nothing, so a retry is safe. With sourceVersion, a save older than the stored one is stale and writes nothing (docs/host-api.md#ordering-saves-sourceversion). A change is in the user\'s /v1/meals feed and webhook calls at once, with a new modifiedAt.',
  requestBody: {
    required: true,
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/MealRecord' },
        examples: {
          full: { summary: "Every field, with the app's row version", value: { ...RECORD, sourceVersion: 17 } },
          least: { summary: 'The two required fields', value: { type: 'snack', date: '2025-03-14T16:00:00+01:00' } },
          west: {
            summary: "Dinner at 20:10 in Denver, its offset given beside a UTC date: the person's day is the 14th",
            value: { type: 'dinner', date: '2025-03-15T03:10:00Z', utcOffset: '-07:00', caloriesTotal: 640 },
          },
        },
      },
    },
  },
  answers: {
    '200': success('What became of the meal.', 'SavedMeal', {
      created: saved('created', 'A new meal'),
      updated: saved('updated', 'The meal changed'),
      unchanged: saved('unchanged', 'The same record again, or a retry with the stored version: nothing written'),
      stale: saved('stale', 'An older version, or the stored version with another record: nothing written'),
    }),
    '400': badRequest(
      'invalid_parameter: a path id breaks its rules (error.param: userId or mealId), or a query parameter is given (the path takes none). Or bad_request: the body is not JSON, is missing, or is not sent as application/json.',
      INVALID_USER_ID,
      INVALID_MEAL_ID,
      UNKNOWN_QUERY_PARAMETER,
      BODY_NOT_JSON,
      BODY_MISSING,
      BODY_OF_ANOTHER_TYPE,
    ),
    '409': ID_TAKEN,
    '413': jsonTooLarge,
    '422': invalidRecord(
      'the body is not a JSON object, has a field not in MealRecord, or a field breaks its rules. Nothing was written.',
      errorExample('invalid_record', 'Type is required.', 'type', 'missing_type'),
      errorExample('invalid_record', 'Unknown field "calories".', 'calories', 'unknown_field'),
      errorExample('invalid_record', 'Proteins_g must be 0 or more, got -1.', 'proteins_g', 'negative_number'),
      errorExample(
        'invalid_record',
        'UtcOffset must be an offset from UTC ±HH:MM, at most 14 hours, such as +09:00 or -08:00, or null, got "+15:00".',
        'utcOffset',
        'bad_offset',
      ),
      errorExample('invalid_record', 'The body must be a JSON object.', undefined, 'not_an_object'),
    ),
  },
});

const readMeal = getAndHead(
  {
    operationId: 'getMeal',
    tags: MEALS,
    summary: 'One meal of the user, live or deleted, and its sourceVersion.',
    description:
      'As a page of /v1/meals with includeDeleted=true shows it (a live meal with deleted: false, or a tombstone), plus the newest sourceVersion the store holds for it: what to compare before a save that must not go back.',
    answers: {
      '200': success('The meal, or its tombstone.', 'StoredMeal', {
        live: { summary: 'A live meal', value: STORED_MEAL },
        tombstone: {
          summary: 'A deleted meal',
          value: { id: 'm_01J9ZQ7T2C', modifiedAt: '2025-03-14T19:02:40.007Z', deleted: true, sourceVersion: 4 },
        },
      }),
      '400': badRequest(
        'invalid_parameter: a path id breaks its rules (error.param: userId or mealId), or a query parameter is given (the path takes none).',
        INVALID_USER_ID,
        INVALID_MEAL_ID,
        UNKNOWN_QUERY_PARAMETER,
      ),
      '404': notFound(
        'meal',
        "the user has no meal of that id, live or deleted (another user's is as unknown). A pruned tombstone is gone too.",
      ),
    },
  },
  'headMeal',
);

const deleteMeal = operationOf({
  operationId: 'deleteMeal',
  tags: MEALS,
  summary: "Deletes one of the user's meals: it becomes a tombstone in the feed.",
  description:
    'Deleting a deleted meal again is unchanged, so a retry is safe. With sourceVersion, a delete older than the stored version is stale and writes nothing; an id no user has then gets a tombstone, so that an older save arriving later is stale (docs/host-api.md#ordering-saves-sourceversion).',
  parameters: [
    {
      name: 'sourceVersion',
      in: 'query',
      required: false,
      description: 'The version of this delete: decimal digits, 0 to 9007199254740991.',
      schema: sourceVersionSchema,
      example: 18,
    },
  ],
  answers: {
    '200': success('What became of the meal.', 'DeletedMeal', {
      deleted: { summary: 'Deleted', value: { id: STORED_MEAL.id, outcome: 'deleted' } },
      unchanged: { summary: 'Deleted already', value: { id: STORED_MEAL.id, outcome: 'unchanged' } },
      stale: { summary: 'A version not newer than the stored one', value: { id: STORED_MEAL.id, outcome: 'stale' } },
    }),
    '400': badRequest(
      'invalid_parameter: a path id breaks its rules, sourceVersion is not an integer from 0 to 9007199254740991, or another query parameter is given (error.param names it).',
      INVALID_USER_ID,
      INVALID_MEAL_ID,
      errorExample('invalid_parameter', sourceVersionFault(), 'sourceVersion', 'invalid_sourceVersion'),
      UNKNOWN_QUERY_PARAMETER,
    ),
    '404': notFound(
      'meal',
      "without sourceVersion, an id the user has no meal of (another user's is as unknown). Nothing was written.",
    ),
    '409': error(
      'id_taken: with sourceVersion, the id is the meal of another user. Nothing was written.',
      {},
      ID_TAKEN_EXAMPLE,
    ),
  },
});

const JSON_LINES = [
  JSON.stringify({ id: 'm_01J9ZQ4W8K', ...RECORD, sourceVersion: 17 }),
  JSON.stringify({ id: 'm_01J9ZQ7T2C', type: 'breakfast', date: '2025-03-15T07:30:00Z', caloriesTotal: 350 }),
].join('\n');

// OpenAPI 3.1 has no schema for each item of a stream: the body is text, and JSON Schema's
// contentSchema (an annotation, checked by no validator) names the schema each line meets.
const importBody = (type: string) => ({
  schema: {
    type: 'string',
    description: `JSON Lines (UTF-8): one ImportRecord (contentSchema) per line, blank lines skipped. At most ${MAX_IMPORT_BYTES / 1024 / 1024} MiB, read as it streams in.`,
    contentMediaType: type,
    contentSchema: { $ref: '#/components/schemas/ImportRecord' },
  },
  examples: { twoMeals: { summary: 'Two meals', value: `${JSON_LINES}\n` } },
});

const importMeals = operationOf({
  operationId: 'importMeals',
  tags: MEALS,
  summary: 'Saves many meals of the user at once, all or nothing.',
  description:
    "Each line is saved as PUT …/meals/{id} would save it, in one transaction: the first bad line is refused by its number and nothing is written (docs/host-api.md#importing-many-meals). For a first load or a resync of a user's meals.",
  requestBody: {
    required: true,
    content: Object.fromEntries(NDJSON_TYPES.map((type) => [type, importBody(type)])),
  },
  answers: {
    '200': success('Every line saved.', 'ImportedMeals', {
      counts: {
        summary: 'Two lines: one new meal, one unchanged',
        value: { imported: 2, created: 1, updated: 0, unchanged: 1, stale: 0 },
      },
    }),
    '400': badRequest(
      'invalid_parameter: userId breaks its rules, or a query parameter is given. Or bad_request: the body is not UTF-8, or not sent as application/x-ndjson or application/jsonl.',
      INVALID_USER_ID,
      UNKNOWN_QUERY_PARAMETER,
      errorExample(
        'bad_request',
        'The import is JSON Lines, sent as Content-Type: application/x-ndjson.',
        undefined,
        'sent_as_json',
      ),
      errorExample('bad_request', 'The body is not UTF-8 text.', undefined, 'not_utf8'),
    ),
    '409': error(
      'id_taken: the id of a line is the meal of another user; error.line names it. Nothing was written.',
      {},
      lineExample('id_taken', 'The meal id "m_01J9ZQ4W8K" belongs to another user.', 2),
    ),
    '413': error(
      `request_too_large: the body is over ${MAX_IMPORT_BYTES / 1024 / 1024} MiB. Nothing was written.`,
      {},
      errorExample('request_too_large', 'The import is larger than 64 MiB.'),
    ),
    '422': invalidRecord(
      'a line is not a JSON object, or breaks the rules of ImportRecord; error.line names the first such line. Nothing was written.',
      lineExample('invalid_record', 'Date is required.', 3, 'date', 'missing_date'),
      lineExample('invalid_record', 'Id is required.', 1, 'id', 'missing_id'),
      lineExample('invalid_record', 'Not valid JSON (Unexpected end of JSON input).', 5, undefined, 'not_json'),
    ),
  },
});

/** The paths of meals, each with what another method gets. */
export const MEAL_PATHS = {
  '/host/v1/users/{userId}/meals/{mealId}': pathItem(
    "One of the user's meals.",
    { ...readMeal, put: saveMeal, delete: deleteMeal },
    [USER_ID_PARAMETER, MEAL_ID_PARAMETER],
  ),
  '/host/v1/users/{userId}/meals/import': pathItem(
    "The user's import. GET, PUT and DELETE here are those of /host/v1/users/{userId}/meals/{mealId} for the meal whose id is import.",
    { post: importMeals },
    [USER_ID_PARAMETER],
    'GET, HEAD, PUT, DELETE, POST',
  ),
};
