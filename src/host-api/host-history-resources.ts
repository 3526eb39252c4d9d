import { USER_PIECE_RECORDS, USERS_BATCH_RECORDS } from '../meals-io/all-users-import.js';
import { componentRef, error, errorExample } from '../openapi/answers.js';
import { MAX_IMPORT_BYTES, NDJSON_TYPES } from './host-body.js';
import { importHistory } from './host-import.js';
import { HISTORY_LINES } from './host-meal-examples.js';
import { invalidRecord, lineExample, success } from './host-openapi-answers.js';
import { MEAL_COMPONENTS } from './host-openapi-schemas.js';
import { hostResource } from './host-route-table.js';

/**
 * The app's history (docs/host-api.md#importing-the-apps-history): every user's meals, each
 * line naming its user, committed in batches of whole users, for a back end that sends the
 * history the day the service is turned on, in pieces of up to 64 MiB.
 */

const IMPORT_MIB = MAX_IMPORT_BYTES / 1024 / 1024;

const historyBody = (type: string) => ({
  schema: {
    type: 'string',
    description: `JSON Lines (UTF-8): one HistoryRecord (contentSchema) per line, blank lines skipped. At most ${IMPORT_MIB} MiB.`,
    contentMediaType: type,
    contentSchema: componentRef(MEAL_COMPONENTS.HistoryRecord),
  },
  examples: { twoUsers: { summary: "Two users' meals", value: `${HISTORY_LINES}\n` } },
});

const STOPPED =
  'The batches of whole users before the line stay committed; the message says through which line: send the same lines again once fixed (what is stored is met as unchanged).';

export const HISTORY_IMPORT_RESOURCE = hostResource({
  path: '/host/v1/meals/import',
  tag: 'Meals',
  description: "The app's history: every user's meals at once.",
  parameters: [],
  operations: {
    POST: {
      operationId: 'importHistory',
      summary: "Saves every user's meals, in batches of whole users.",
      description: `Each line is saved for its userId as PUT /host/v1/users/{userId}/meals/{id} would save it. The lines are committed in batches of at least ${USERS_BATCH_RECORDS}, each ending where the user changes (a user of more than ${USER_PIECE_RECORDS} lines in pieces of ${USER_PIECE_RECORDS}), each one change per user (one signal, one webhook event per endpoint). The first bad line, or the first id of another user, stops the import: the batches before it stay (docs/host-api.md#importing-the-apps-history).`,
      body: {
        kind: 'json-lines',
        content: Object.fromEntries(NDJSON_TYPES.map((type) => [type, historyBody(type)])),
        uses: [MEAL_COMPONENTS.HistoryRecord],
        tooLarge: error(
          `request_too_large: the body is over ${IMPORT_MIB} MiB. Nothing was written.`,
          {},
          errorExample('request_too_large', `The import is larger than ${IMPORT_MIB} MiB.`),
        ),
      },
      answers: {
        '200': success('Every line saved.', MEAL_COMPONENTS.ImportedHistory, {
          counts: {
            summary: "Two users' lines: one new meal, one unchanged",
            value: { imported: 2, created: 1, updated: 0, unchanged: 1, stale: 0, batches: 1 },
          },
        }),
        '409': error(
          `id_taken: the id of a line is the meal of another user; error.line names it. ${STOPPED}`,
          {},
          lineExample('id_taken', 'Line 2: id "m_01J9ZQ4W8K" belongs to another user. Nothing was committed.', 2),
        ),
        '422': invalidRecord(
          `a line is not a JSON object, or breaks the rules of HistoryRecord; error.line names the first such line. ${STOPPED}`,
          lineExample(
            'invalid_record',
            'Line 3: userId must be 1 to 200 characters, none of them a control character (it is missing). Nothing was committed.',
            3,
            'userId',
            'missing_userId',
          ),
        ),
      },
      async handle(call, deps) {
        return { body: await importHistory(call.request, deps.imports) };
      },
    },
  },
});
