import { MAX_WEBHOOKS_PER_USER } from '../domain/webhook-endpoint.js';
import { error, errorExample } from '../http/openapi-responses.js';
import { invalidRecord, jsonBody, success } from './host-openapi-answers.js';
import { type MemberPath, userCollectionPaths } from './host-openapi-collection.js';

/**
 * A user's webhook endpoints in the host API's document
 * (docs/host-api.md#keys-webhook-endpoints-and-sign-in-links): the `webhooks` commands, for the
 * app's back end. The calls themselves are described by the public document's webhooks.
 */

const WEBHOOK = {
  id: 'wh_3kTq9ZpL2vXw8RmN4bYc1d',
  url: 'https://hooks.diet.example/meal-export',
  name: 'sync worker',
  createdAt: '2026-11-02T09:00:00.000Z',
};
const SECRET = 'whsec_GEueGv76y+kJynXDyyd8x6oOy4ueBVrpeVHaMl4mowU=';

/** A path on one endpoint whose POST or DELETE does what `operation` says, answered `value` under "Done.". */
const onEndpoint = (
  description: string,
  method: 'post' | 'delete',
  operation: MemberPath['operation'],
  schema: string,
  value: object,
): MemberPath => ({
  description,
  method,
  operation,
  done: success('Done.', schema, { done: { summary: 'Done', value } }),
});

/** The paths of webhook endpoints, each with what another method gets. */
export const WEBHOOK_PATHS = userCollectionPaths({
  tag: 'Webhooks',
  path: '/host/v1/users/{userId}/webhooks',
  description: "The user's webhook endpoints.",
  create: {
    operationId: 'createWebhook',
    summary: "Registers an endpoint the service calls when the user's meals change.",
    description: `The secret is in this answer only. A user has at most ${MAX_WEBHOOKS_PER_USER} endpoints. The calls are those of the public document's webhooks.`,
    requestBody: jsonBody('CreateWebhookRequest', true, {
      named: { summary: 'A URL and a name', value: { url: WEBHOOK.url, name: WEBHOOK.name } },
    }),
    created: success('The new endpoint, enabled.', 'CreatedWebhook', {
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
    tooMany: error(
      `too_many_webhooks: the user has ${MAX_WEBHOOKS_PER_USER} endpoints already. Delete one first.`,
      {},
      errorExample(
        'too_many_webhooks',
        `user u_42 already has ${MAX_WEBHOOKS_PER_USER} webhook endpoints: delete one first.`,
      ),
    ),
    invalid: invalidRecord(
      'url is missing or cannot be registered (error.param: url), the name is too long (name), or the body has another field.',
      errorExample('invalid_record', 'url is required.', 'url', 'missing_url'),
      errorExample('invalid_record', 'a webhook URL must start with https://.', 'url', 'not_https'),
    ),
  },
  list: {
    operationId: 'listWebhooks',
    headId: 'headWebhooks',
    summary: "The user's endpoints and how their last call went: never a secret.",
    description: 'Oldest first; an empty list for a user with none.',
    listed: success("The user's endpoints.", 'WebhookList', {
      endpoints: {
        summary: 'One endpoint, called',
        value: [{ ...WEBHOOK, status: 'enabled', lastAttemptAt: '2026-11-25T10:00:01.204Z', lastStatus: 204 }],
      },
    }),
  },
  memberId: {
    name: 'webhookId',
    description: 'An endpoint id (wh_…) from registering or listing endpoints.',
    example: WEBHOOK.id,
  },
  memberNoun: 'webhook endpoint',
  unknownMember: 'no endpoint has this id.',
  memberPaths: {
    '/host/v1/webhooks/{webhookId}': onEndpoint(
      'One webhook endpoint.',
      'delete',
      {
        operationId: 'deleteWebhook',
        summary: 'Deletes the endpoint: no more calls.',
        description: 'Its pending events and attempts go with it.',
      },
      'DeletedWebhook',
      { id: WEBHOOK.id, deleted: true },
    ),
    '/host/v1/webhooks/{webhookId}/enable': onEndpoint(
      'Enabling an endpoint.',
      'post',
      {
        operationId: 'enableWebhook',
        summary: 'Enables a disabled endpoint again.',
        description:
          'Its pending events are due at once and their retries start over; enabling an enabled endpoint answers the same.',
      },
      'EnabledWebhook',
      { id: WEBHOOK.id, enabled: true },
    ),
    '/host/v1/webhooks/{webhookId}/rotate-secret': onEndpoint(
      "Rotating an endpoint's secret.",
      'post',
      {
        operationId: 'rotateWebhookSecret',
        summary: 'A new signing secret for the endpoint.',
        description: 'Calls are signed with both secrets for 24 hours, time to give the receiver the new one.',
      },
      'RotatedSecret',
      { id: WEBHOOK.id, secret: 'whsec_sJTIv+CdP7NS+NytVFIy6YcdE6loNzFTb7scYIJLV2E=' },
    ),
    '/host/v1/webhooks/{webhookId}/test': onEndpoint(
      'Testing an endpoint.',
      'post',
      {
        operationId: 'testWebhook',
        summary: 'Queues a webhook.test call to the endpoint.',
        description: 'Sent within seconds, signed as every call; its outcome shows among the attempts.',
      },
      'QueuedTest',
      { id: WEBHOOK.id, eventId: `msg_${'0a9f'.repeat(8)}` },
    ),
    '/host/v1/webhooks/{webhookId}/attempts': {
      description: "An endpoint's last calls.",
      method: 'get',
      headId: 'headWebhookAttempts',
      operation: {
        operationId: 'listWebhookAttempts',
        summary: "The endpoint's last 50 calls, newest first.",
        description: 'What the app page shows under an endpoint: when, which event, what came back, how long it took.',
      },
      done: success('The last attempts.', 'WebhookAttemptList', {
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
    },
  },
});
