import { parseSourceVersionText, sourceVersionFault } from '../domain/source-version.js';
import { AppError } from '../errors.js';
import { deleteRecord, saveRecord, storedMealJson } from '../meal-host/host-meal-operations.js';
import { componentRef, error, errorExample } from '../openapi/answers.js';
import { MAX_IMPORT_BYTES, NDJSON_TYPES } from './host-body.js';
import { refusalError, unknownId } from './host-api-errors.js';
import { importRecords } from './host-import.js';
import { JSON_LINES, RECORD, STORED_MEAL } from './host-meal-examples.js';
import { invalidRecord, lineExample, notFound, success } from './host-openapi-answers.js';
import { MEAL_COMPONENTS, sourceVersionSchema } from './host-openapi-schemas.js';
import { MEAL_ID, USER_ID } from './host-paths.js';
import { hostResource, type QueryParameter } from './host-route-table.js';

/**
 * A user's meals (docs/host-api.md#saving-and-deleting-meals,
 * docs/host-api.md#importing-many-meals): one meal saved, read or deleted by its id, and many
 * imported in one transaction.
 */

const TAG = 'Meals';

/** `?sourceVersion=N` of a delete. */
const SOURCE_VERSION: QueryParameter<number> = {
  name: 'sourceVersion',
  description: 'The version of this delete: decimal digits, 0 to 9007199254740991.',
  schema: sourceVersionSchema,
  example: 18,
  parse: (text) =>
    parseSourceVersionText(text) ?? new AppError('invalid_parameter', sourceVersionFault(), { param: 'sourceVersion' }),
  fault: 'sourceVersion is not an integer from 0 to 9007199254740991',
  faultExample: errorExample('invalid_parameter', sourceVersionFault(), 'sourceVersion', 'invalid_sourceVersion'),
};

const ID_TAKEN_EXAMPLE = errorExample('id_taken', 'The meal id "m_01J9ZQ4W8K" belongs to another user.');

const saved = (outcome: string, summary: string) => ({
  summary,
  value: { id: STORED_MEAL.id, outcome, modifiedAt: STORED_MEAL.modifiedAt },
});

export const MEAL_RESOURCE = hostResource({
  path: '/host/v1/users/{userId}/meals/{mealId}',
  tag: TAG,
  description: "One of the user's meals.",
  parameters: [USER_ID, MEAL_ID],
  operations: {
    GET: {
      operationId: 'getMeal',
      headId: 'headMeal',
      summary: 'One meal of the user, live or deleted, and its sourceVersion.',
      description:
        'As a page of /v1/meals with includeDeleted=true shows it (a live meal with deleted: false, or a tombstone), plus the newest sourceVersion the store holds for it: what to compare before a save that must not go back.',
      answers: {
        '200': success('The meal, or its tombstone.', MEAL_COMPONENTS.StoredMeal, {
          live: { summary: 'A live meal', value: STORED_MEAL },
          tombstone: {
            summary: 'A deleted meal',
            value: { id: 'm_01J9ZQ7T2C', modifiedAt: '2025-03-14T19:02:40.007Z', deleted: true, sourceVersion: 4 },
          },
        }),
        '404': notFound(
          'meal',
          "the user has no meal of that id, live or deleted (another user's is as unknown). A pruned tombstone is gone too.",
        ),
      },
      async handle(call, { storage }) {
        const json = await storedMealJson(storage.feed, call.id('userId'), call.id('mealId'));
        if (json === undefined) throw unknownId('meal');
        return { raw: json };
      },
    },
    PUT: {
      operationId: 'saveMeal',
      summary: "Creates or replaces one of the user's meals.",
      description:
        'The record replaces the meal whole: a field left out is "" or null. The same record again is unchanged and writes nothing, so a retry is safe. With sourceVersion, a save older than the stored one is stale and writes nothing (docs/host-api.md#ordering-saves-sourceversion). A change is in the user\'s /v1/meals feed and webhook calls at once, with a new modifiedAt.',
      body: {
        kind: 'record',
        component: MEAL_COMPONENTS.MealRecord,
        examples: {
          full: { summary: "Every field, with the app's row version", value: { ...RECORD, sourceVersion: 17 } },
          least: { summary: 'The two required fields', value: { type: 'snack', date: '2025-03-14T16:00:00+01:00' } },
          west: {
            summary: "Dinner at 20:10 in Denver, its offset given beside a UTC date: the person's day is the 14th",
            value: { type: 'dinner', date: '2025-03-15T03:10:00Z', utcOffset: '-07:00', caloriesTotal: 640 },
          },
        },
      },
      answers: {
        '200': success('What became of the meal.', MEAL_COMPONENTS.SavedMeal, {
          created: saved('created', 'A new meal'),
          updated: saved('updated', 'The meal changed'),
          unchanged: saved('unchanged', 'The same record again, or a retry with the stored version: nothing written'),
          stale: saved('stale', 'An older version, or the stored version with another record: nothing written'),
        }),
        '409': error('id_taken: the id is the meal of another user. Nothing was written.', {}, ID_TAKEN_EXAMPLE),
        '422': invalidRecord(
          'the body is not a JSON object, has a field not in MealRecord, or a field breaks its rules. Nothing was written.',
          errorExample('invalid_record', 'type is required.', 'type', 'missing_type'),
          errorExample('invalid_record', 'Unknown field "calories".', 'calories', 'unknown_field'),
          errorExample('invalid_record', 'proteins_g must be 0 or more, got -1.', 'proteins_g', 'negative_number'),
          errorExample(
            'invalid_record',
            'utcOffset must be an offset from UTC ±HH:MM, at most 14 hours, such as +09:00 or -08:00, or null, got "+15:00".',
            'utcOffset',
            'bad_offset',
          ),
          errorExample('invalid_record', 'The body must be a JSON object.', undefined, 'not_an_object'),
        ),
      },
      async handle(call, { storage }) {
        const saved = await saveRecord(storage.writes, call.id('userId'), call.id('mealId'), call.body, Date.now());
        if (!saved.ok) throw refusalError(saved);
        return { body: { id: saved.id, outcome: saved.outcome, modifiedAt: saved.modifiedAt } };
      },
    },
    DELETE: {
      operationId: 'deleteMeal',
      summary: "Deletes one of the user's meals: it becomes a tombstone in the feed.",
      description:
        'Deleting a deleted meal again is unchanged, so a retry is safe. With sourceVersion, a delete older than the stored version is stale and writes nothing; an id no user has then gets a tombstone, so that an older save arriving later is stale (docs/host-api.md#ordering-saves-sourceversion).',
      query: [SOURCE_VERSION],
      answers: {
        '200': success('What became of the meal.', MEAL_COMPONENTS.DeletedMeal, {
          deleted: { summary: 'Deleted', value: { id: STORED_MEAL.id, outcome: 'deleted' } },
          unchanged: { summary: 'Deleted already', value: { id: STORED_MEAL.id, outcome: 'unchanged' } },
          stale: {
            summary: 'A version not newer than the stored one',
            value: { id: STORED_MEAL.id, outcome: 'stale' },
          },
        }),
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
      async handle(call, { storage }) {
        const version = call.query(SOURCE_VERSION);
        const deleted = await deleteRecord(storage.writes, call.id('userId'), call.id('mealId'), version, Date.now());
        if (deleted.ok) return { body: { id: deleted.id, outcome: deleted.outcome } };
        if (deleted.reason === 'not_found') throw unknownId('meal');
        throw refusalError(deleted);
      },
    },
  },
});

const IMPORT_MIB = MAX_IMPORT_BYTES / 1024 / 1024;

// OpenAPI 3.1 has no schema for each item of a stream: the body is text, and JSON Schema's
// contentSchema (an annotation, checked by no validator) names the schema each line meets.
const importBody = (type: string) => ({
  schema: {
    type: 'string',
    description: `JSON Lines (UTF-8): one ImportRecord (contentSchema) per line, blank lines skipped. At most ${IMPORT_MIB} MiB, read as it streams in.`,
    contentMediaType: type,
    contentSchema: componentRef(MEAL_COMPONENTS.ImportRecord),
  },
  examples: { twoMeals: { summary: 'Two meals', value: `${JSON_LINES}\n` } },
});

export const IMPORT_RESOURCE = hostResource({
  path: '/host/v1/users/{userId}/meals/import',
  tag: TAG,
  description:
    "The user's import. GET, PUT and DELETE here are those of /host/v1/users/{userId}/meals/{mealId} for the meal whose id is import.",
  parameters: [USER_ID],
  // The router takes the static segment first, so the meal whose id is `import` is answered here.
  alsoAnswers: { resource: MEAL_RESOURCE, ids: { mealId: 'import' } },
  operations: {
    POST: {
      operationId: 'importMeals',
      summary: 'Saves many meals of the user at once, all or nothing.',
      description:
        "Each line is saved as PUT …/meals/{id} would save it, in one transaction: the first bad line is refused by its number and nothing is written (docs/host-api.md#importing-many-meals). For a first load or a resync of a user's meals.",
      body: {
        kind: 'json-lines',
        content: Object.fromEntries(NDJSON_TYPES.map((type) => [type, importBody(type)])),
        uses: [MEAL_COMPONENTS.ImportRecord],
        tooLarge: error(
          `request_too_large: the body is over ${IMPORT_MIB} MiB. Nothing was written.`,
          {},
          errorExample('request_too_large', `The import is larger than ${IMPORT_MIB} MiB.`),
        ),
      },
      answers: {
        '200': success('Every line saved.', MEAL_COMPONENTS.ImportedMeals, {
          counts: {
            summary: 'Two lines: one new meal, one unchanged',
            value: { imported: 2, created: 1, updated: 0, unchanged: 1, stale: 0 },
          },
        }),
        '409': error(
          'id_taken: the id of a line is the meal of another user; error.line names it. Nothing was written.',
          {},
          lineExample('id_taken', 'Line 2: id "m_01J9ZQ4W8K" belongs to another user.', 2),
        ),
        '422': invalidRecord(
          'a line is not a JSON object, or breaks the rules of ImportRecord; error.line names the first such line. Nothing was written.',
          lineExample('invalid_record', 'Line 3: date is required.', 3, 'date', 'missing_date'),
          lineExample('invalid_record', 'Line 1: id is required.', 1, 'id', 'missing_id'),
          lineExample(
            'invalid_record',
            'Line 5: Not valid JSON (Unexpected end of JSON input).',
            5,
            undefined,
            'not_json',
          ),
        ),
      },
      async handle(call, deps) {
        return { body: await importRecords(call.request, call.id('userId'), deps.imports) };
      },
    },
  },
});
