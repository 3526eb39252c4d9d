import { MAX_WEBHOOKS_PER_USER } from '../domain/webhook-endpoint.js';
import { error, errorExample } from '../http/openapi-responses.js';
import {
  getAndHead,
  type HostOperation,
  ID_REFUSAL,
  invalidRecord,
  jsonBody,
  jsonTooLarge,
  notFound,
  operationOf,
  pathItem,
  success,
  USER_BODY_REFUSAL,
  USER_REFUSAL,
} from './host-openapi-answers.js';
import { USER_ID_PARAMETER } from './host-openapi-schemas.js';

/**
 * A user's webhook endpoints in the host API's document
 * (docs/host-api.md#keys-webhook-endpoints-and-sign-in-links): the `webhooks` commands, for the
 * app's back end. The calls themselves are described by the public document's webhooks.
 */

const WEBHOOKS = ['Webhooks'];

const WEBHOOK = {
  id: 'wh_3kTq9ZpL2vXw8RmN4bYc1d',
  url: 'https://hooks.diet.example/meal-export',
  name: 'sync worker',
  createdAt: '2026-11-02T09:00:00.000Z',
};
const SECRET = 'whsec_GEueGv76y+kJynXDyyd8x6oOy4ueBVrpeVHaMl4mowU=';

const createWebhook = operationOf({
  operationId: 'createWebhook',
  tags: WEBHOOKS,
  summary: "Registers an endpoint the service calls when the user's meals change.",
  description: `The secret is in this answer only. A user has at most ${MAX_WEBHOOKS_PER_USER} endpoints. The calls are those of the public document's webhooks.`,
  requestBody: jsonBody('CreateWebhookRequest', true, {
    named: { summary: 'A URL and a name', value: { url: WEBHOOK.url, name: WEBHOOK.name } },
  }),
  answers: {
    '201': success('The new endpoint, enabled.', 'CreatedWebhook', {
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
    '400': USER_BODY_REFUSAL,
    '409': error(
      `too_many_webhooks: the user has ${MAX_WEBHOOKS_PER_USER} endpoints already. Delete one first.`,
      {},
      errorExample(
        'too_many_webhooks',
        `user u_42 already has ${MAX_WEBHOOKS_PER_USER} webhook endpoints: delete one first.`,
      ),
    ),
    '413': jsonTooLarge,
    '422': invalidRecord(
      'url is missing or cannot be registered (error.param: url), the name is too long (name), or the body has another field.',
      errorExample('invalid_record', 'url is required.', 'url', 'missing_url'),
      errorExample('invalid_record', 'a webhook URL must start with https://.', 'url', 'not_https'),
    ),
  },
});

const listWebhooks = getAndHead(
  {
    operationId: 'listWebhooks',
    tags: WEBHOOKS,
    summary: "The user's endpoints and how their last call went: never a secret.",
    description: 'Oldest first; an empty list for a user with none.',
    answers: {
      '200': success("The user's endpoints.", 'WebhookList', {
        endpoints: {
          summary: 'One endpoint, called',
          value: [{ ...WEBHOOK, status: 'enabled', lastAttemptAt: '2026-11-25T10:00:01.204Z', lastStatus: 204 }],
        },
      }),
      '400': USER_REFUSAL,
    },
  },
  'headWebhooks',
);

const WEBHOOK_ID_PARAMETER = {
  name: 'webhookId',
  in: 'path',
  required: true,
  description: 'An endpoint id (wh_…) from registering or listing endpoints.',
  schema: { type: 'string' },
  example: WEBHOOK.id,
};

const UNKNOWN_WEBHOOK = notFound('webhook endpoint', 'no endpoint has this id.');

/** An operation on one endpoint: no body read, its id the only thing that can be wrong. */
const onEndpoint = (operation: Omit<HostOperation, 'tags' | 'answers'>, schema: string, value: object) =>
  operationOf({
    ...operation,
    tags: WEBHOOKS,
    answers: {
      '200': success('Done.', schema, { done: { summary: 'Done', value } }),
      '400': ID_REFUSAL,
      '404': UNKNOWN_WEBHOOK,
    },
  });

const attempts = getAndHead(
  {
    operationId: 'listWebhookAttempts',
    tags: WEBHOOKS,
    summary: "The endpoint's last 50 calls, newest first.",
    description: 'What the app page shows under an endpoint: when, which event, what came back, how long it took.',
    answers: {
      '200': success('The last attempts.', 'WebhookAttemptList', {
        attempts: {
          summary: 'A failed call, then a delivered retry',
          value: [
            { at: '2026-11-25T10:00:06.310Z', eventId: `msg_${'7c1e'.repeat(8)}`, status: 204, error: null, ms: 85 },
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
      '400': ID_REFUSAL,
      '404': UNKNOWN_WEBHOOK,
    },
  },
  'headWebhookAttempts',
);

const ENDPOINT = [WEBHOOK_ID_PARAMETER];

/** The paths of webhook endpoints, each with what another method gets. */
export const WEBHOOK_PATHS = {
  '/host/v1/users/{userId}/webhooks': pathItem(
    "The user's webhook endpoints.",
    { post: createWebhook, ...listWebhooks },
    [USER_ID_PARAMETER],
  ),
  '/host/v1/webhooks/{webhookId}': pathItem(
    'One webhook endpoint.',
    {
      delete: onEndpoint(
        {
          operationId: 'deleteWebhook',
          summary: 'Deletes the endpoint: no more calls.',
          description: 'Its pending events and attempts go with it.',
        },
        'DeletedWebhook',
        { id: WEBHOOK.id, deleted: true },
      ),
    },
    ENDPOINT,
  ),
  '/host/v1/webhooks/{webhookId}/enable': pathItem(
    'Enabling an endpoint.',
    {
      post: onEndpoint(
        {
          operationId: 'enableWebhook',
          summary: 'Enables a disabled endpoint again.',
          description:
            'Its pending events are due at once and their retries start over; enabling an enabled endpoint answers the same.',
        },
        'EnabledWebhook',
        { id: WEBHOOK.id, enabled: true },
      ),
    },
    ENDPOINT,
  ),
  '/host/v1/webhooks/{webhookId}/rotate-secret': pathItem(
    "Rotating an endpoint's secret.",
    {
      post: onEndpoint(
        {
          operationId: 'rotateWebhookSecret',
          summary: 'A new signing secret for the endpoint.',
          description: 'Calls are signed with both secrets for 24 hours, time to give the receiver the new one.',
        },
        'RotatedSecret',
        { id: WEBHOOK.id, secret: 'whsec_sJTIv+CdP7NS+NytVFIy6YcdE6loNzFTb7scYIJLV2E=' },
      ),
    },
    ENDPOINT,
  ),
  '/host/v1/webhooks/{webhookId}/test': pathItem(
    'Testing an endpoint.',
    {
      post: onEndpoint(
        {
          operationId: 'testWebhook',
          summary: 'Queues a webhook.test call to the endpoint.',
          description: 'Sent within seconds, signed as every call; its outcome shows among the attempts.',
        },
        'QueuedTest',
        { id: WEBHOOK.id, eventId: `msg_${'0a9f'.repeat(8)}` },
      ),
    },
    ENDPOINT,
  ),
  '/host/v1/webhooks/{webhookId}/attempts': pathItem("An endpoint's last calls.", attempts, ENDPOINT),
};
