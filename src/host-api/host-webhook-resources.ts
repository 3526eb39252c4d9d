import { MAX_WEBHOOKS_PER_USER, webhookNameProblem, webhookUrlProblem } from '../domain/webhook-endpoint.js';
import { AppError } from '../errors.js';
import {
  attemptInfo,
  createdWebhookView,
  deletedView,
  enabledWebhookView,
  queuedTestView,
  rotatedSecretView,
  webhookInfo,
} from '../meal-host/host-records.js';
import { type Component, error, errorExample } from '../openapi/answers.js';
import type { WebhookStore } from '../storage/webhook-store.js';
import { queueWebhookTest, registerWebhook, rotateWebhookSecret } from '../webhooks/webhook-endpoints.js';
import { objectBody } from './host-body-schema.js';
import { unknownId } from './host-api-errors.js';
import { ACCOUNT, createWebhookRequestSchema } from './host-openapi-account-schemas.js';
import { invalidRecord, notFound, success } from './host-openapi-answers.js';
import { storeIdParameter, USER_ID } from './host-paths.js';
import { type HostAnswer, type HostOperation, hostResource, type HostResource } from './host-route-table.js';

/**
 * A user's webhook endpoints (docs/host-api.md#keys-webhook-endpoints-and-sign-in-links): the
 * `webhooks` commands, for the app's back end. The calls themselves are described by the public
 * document's webhooks.
 */

const TAG = 'Webhooks';

const WEBHOOK = {
  id: 'wh_3kTq9ZpL2vXw8RmN4bYc1d',
  url: 'https://hooks.diet.example/meal-export',
  name: 'sync worker',
  createdAt: '2026-11-02T09:00:00.000Z',
};
const SECRET = 'whsec_GEueGv76y+kJynXDyyd8x6oOy4ueBVrpeVHaMl4mowU=';

/** The domain's sentences, as `webhooks create` words them, ended as the host API's messages are. */
const sentence = (problem: string | undefined) => (problem === undefined ? undefined : `${problem}.`);

const CREATE_WEBHOOK_BODY = objectBody({
  component: 'CreateWebhookRequest',
  schema: createWebhookRequestSchema,
  required: true,
  examples: { named: { summary: 'A URL and a name', value: { url: WEBHOOK.url, name: WEBHOOK.name } } },
  faults: {
    url: (url) => sentence(webhookUrlProblem(url)),
    name: (name) => sentence(webhookNameProblem(name)),
  },
});

export const WEBHOOKS_RESOURCE = hostResource({
  path: '/host/v1/users/{userId}/webhooks',
  tag: TAG,
  description: "The user's webhook endpoints.",
  parameters: [USER_ID],
  operations: {
    POST: {
      operationId: 'createWebhook',
      summary: "Registers an endpoint the service calls when the user's meals change.",
      description: `The secret is in this answer only. A user has at most ${MAX_WEBHOOKS_PER_USER} endpoints. The calls are those of the public document's webhooks.`,
      body: CREATE_WEBHOOK_BODY,
      answers: {
        '201': success('The new endpoint, enabled.', ACCOUNT.CreatedWebhook, {
          created: {
            summary: 'An endpoint',
            value: {
              id: WEBHOOK.id,
              userId: 'u_42',
              url: WEBHOOK.url,
              name: WEBHOOK.name,
              secret: SECRET,
              createdAt: WEBHOOK.createdAt,
            },
          },
        }),
        '409': error(
          `too_many_webhooks: the user has ${MAX_WEBHOOKS_PER_USER} endpoints already. Delete one first.`,
          {},
          errorExample(
            'too_many_webhooks',
            `user u_42 already has ${MAX_WEBHOOKS_PER_USER} webhook endpoints: delete one first.`,
          ),
        ),
        '422': invalidRecord(
          'url is missing or cannot be registered (error.param: url), the name is too long (name), or the body has another field.',
          errorExample('invalid_record', 'url is required.', 'url', 'missing_url'),
          errorExample('invalid_record', 'a webhook URL must start with https://.', 'url', 'not_https'),
        ),
      },
      async handle(call, { storage }) {
        const { url, name } = call.bodyOf(CREATE_WEBHOOK_BODY);
        const endpoint = { userId: call.id('userId'), url, name: name ?? '' };
        const result = await registerWebhook(storage.webhooks, endpoint, Date.now());
        if (!result.ok) {
          if (result.reason === 'too_many_webhooks') throw new AppError('too_many_webhooks', `${result.message}.`);
          const param = result.reason === 'invalid_url' ? 'url' : 'name';
          throw new AppError('invalid_record', `${result.message}.`, { param });
        }
        return { body: createdWebhookView(result.endpoint) };
      },
    },
    GET: {
      operationId: 'listWebhooks',
      headId: 'headWebhooks',
      summary: "The user's endpoints and how their last call went: never a secret.",
      description: 'Oldest first; an empty list for a user with none.',
      answers: {
        '200': success("The user's endpoints.", ACCOUNT.WebhookList, {
          endpoints: {
            summary: 'One endpoint, called',
            value: [{ ...WEBHOOK, status: 'enabled', lastAttemptAt: '2026-11-25T10:00:01.204Z', lastStatus: 204 }],
          },
        }),
      },
      async handle(call, { storage }) {
        return { body: (await storage.webhooks.listWebhooks(call.id('userId'))).map(webhookInfo) };
      },
    },
  },
});

const WEBHOOK_ID = storeIdParameter(
  'webhookId',
  'An endpoint id (wh_…) from registering or listing endpoints.',
  WEBHOOK.id,
);
const UNKNOWN_ENDPOINT = notFound('webhook endpoint', 'no endpoint has this id.');
const unknownEndpoint = () => unknownId('webhook endpoint');

/** A path of one endpoint with its one method, answered `value` ("Done.") or 404 for an unknown id. */
function onEndpoint(
  path: string,
  description: string,
  method: 'POST' | 'DELETE',
  words: Pick<HostOperation, 'operationId' | 'summary' | 'description'>,
  done: { readonly schema: Component; readonly value: object },
  act: (webhooks: WebhookStore, id: string) => Promise<HostAnswer | undefined>,
): HostResource {
  const operation: HostOperation<'webhookId'> = {
    ...words,
    answers: {
      '200': success('Done.', done.schema, { done: { summary: 'Done', value: done.value } }),
      '404': UNKNOWN_ENDPOINT,
    },
    async handle(call, { storage }) {
      const answer = await act(storage.webhooks, call.id('webhookId'));
      if (answer === undefined) throw unknownEndpoint();
      return answer;
    },
  };
  return hostResource({
    path: `/host/v1/webhooks/{webhookId}${path}`,
    tag: TAG,
    description,
    parameters: [WEBHOOK_ID],
    operations: { [method]: operation },
  });
}

const ok = (body: unknown): HostAnswer => ({ body });

export const WEBHOOK_RESOURCES: readonly HostResource[] = [
  WEBHOOKS_RESOURCE,
  onEndpoint(
    '',
    'One webhook endpoint.',
    'DELETE',
    {
      operationId: 'deleteWebhook',
      summary: 'Deletes the endpoint: no more calls.',
      description: 'Its pending events and attempts go with it.',
    },
    { schema: ACCOUNT.DeletedWebhook, value: { id: WEBHOOK.id, deleted: true } },
    async (webhooks, id) => ((await webhooks.deleteWebhook(id)) ? ok(deletedView(id)) : undefined),
  ),
  onEndpoint(
    '/enable',
    'Enabling an endpoint.',
    'POST',
    {
      operationId: 'enableWebhook',
      summary: 'Enables a disabled endpoint again.',
      description:
        'Its pending events are due at once and their retries start over; enabling an enabled endpoint answers the same.',
    },
    { schema: ACCOUNT.EnabledWebhook, value: { id: WEBHOOK.id, enabled: true } },
    async (webhooks, id) => ((await webhooks.enableWebhook(id, Date.now())) ? ok(enabledWebhookView(id)) : undefined),
  ),
  onEndpoint(
    '/rotate-secret',
    "Rotating an endpoint's secret.",
    'POST',
    {
      operationId: 'rotateWebhookSecret',
      summary: 'A new signing secret for the endpoint.',
      description: 'Calls are signed with both secrets for 24 hours, time to give the receiver the new one.',
    },
    {
      schema: ACCOUNT.RotatedSecret,
      value: { id: WEBHOOK.id, secret: 'whsec_sJTIv+CdP7NS+NytVFIy6YcdE6loNzFTb7scYIJLV2E=' },
    },
    async (webhooks, id) => {
      const secret = await rotateWebhookSecret(webhooks, id, Date.now());
      return secret === undefined ? undefined : ok(rotatedSecretView(id, secret));
    },
  ),
  onEndpoint(
    '/test',
    'Testing an endpoint.',
    'POST',
    {
      operationId: 'testWebhook',
      summary: 'Queues a webhook.test call to the endpoint.',
      description: 'Sent within seconds, signed as every call; its outcome shows among the attempts.',
    },
    { schema: ACCOUNT.QueuedTest, value: { id: WEBHOOK.id, eventId: `msg_${'0a9f'.repeat(8)}` } },
    async (webhooks, id) => {
      const eventId = await queueWebhookTest(webhooks, id, Date.now());
      return eventId === undefined ? undefined : ok(queuedTestView(id, eventId));
    },
  ),
  {
    path: '/host/v1/webhooks/{webhookId}/attempts',
    tag: TAG,
    description: "An endpoint's last calls.",
    parameters: [WEBHOOK_ID],
    operations: {
      GET: {
        operationId: 'listWebhookAttempts',
        headId: 'headWebhookAttempts',
        summary: "The endpoint's last 50 calls, newest first.",
        description: 'What the app page shows under an endpoint: when, which event, what came back, how long it took.',
        answers: {
          '200': success('The last attempts.', ACCOUNT.WebhookAttemptList, {
            attempts: {
              summary: 'A failed call, then a delivered retry',
              value: [
                {
                  at: '2026-11-25T10:00:06.310Z',
                  eventId: `msg_${'7c1e'.repeat(8)}`,
                  status: 204,
                  error: null,
                  ms: 85,
                },
                {
                  at: '2026-11-25T10:00:01.204Z',
                  eventId: `msg_${'7c1e'.repeat(8)}`,
                  status: null,
                  error: 'timeout',
                  ms: 10000,
                },
              ],
            },
          }),
          '404': UNKNOWN_ENDPOINT,
        },
        async handle(call, { storage }) {
          const id = call.id('webhookId');
          if ((await storage.webhooks.findWebhook(id)) === undefined) throw unknownEndpoint();
          return ok((await storage.webhooks.listWebhookAttempts(id)).map(attemptInfo));
        },
      },
    },
  },
];
