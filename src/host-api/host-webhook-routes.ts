import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import {
  attemptInfo,
  createdWebhookView,
  deletedView,
  enabledWebhookView,
  queuedTestView,
  rotatedSecretView,
  webhookInfo,
} from '../host/host-records.js';
import type { Storage } from '../storage/storage.js';
import { queueWebhookTest, registerWebhook, rotateWebhookSecret } from '../webhooks/webhook-endpoints.js';
import { jsonObjectBody, optionalText } from './host-body.js';
import { unknownId } from './host-errors.js';
import { idOf, userIdOf } from './host-paths.js';
import { type HostAnswer, registerResource } from './host-resource.js';

export interface HostWebhookRoutesDeps {
  readonly storage: Storage;
}

/** The endpoint id of the path, after a request's checks; no body is read. */
function endpointIdOf(request: FastifyRequest): string {
  return idOf(request, 'webhookId');
}

const unknownEndpoint = () => unknownId('webhook endpoint');

/** A user's webhook endpoints, as the `webhooks` commands (docs/host-api.md#keys-webhook-endpoints-and-sign-in-links). */
export function registerHostWebhookRoutes(app: FastifyInstance, deps: HostWebhookRoutesDeps): void {
  const { storage } = deps;
  const { webhooks } = storage;

  registerResource(app, '/host/v1/users/:userId/webhooks', {
    async POST(request) {
      const userId = userIdOf(request);
      const body = jsonObjectBody(request, ['url', 'name']);
      const url = optionalText(body, 'url');
      if (url === undefined) throw new AppError('invalid_record', 'url is required.', { param: 'url' });
      const name = optionalText(body, 'name') ?? '';
      const result = await registerWebhook(webhooks, { userId, url, name }, Date.now());
      if (!result.ok) {
        if (result.reason === 'too_many_webhooks') throw new AppError('too_many_webhooks', `${result.message}.`);
        const param = result.reason === 'invalid_url' ? 'url' : 'name';
        throw new AppError('invalid_record', `${result.message}.`, { param });
      }
      return { status: 201, body: createdWebhookView(result.endpoint) };
    },
    async GET(request) {
      const userId = userIdOf(request);
      return { status: 200, body: (await webhooks.listWebhooks(userId)).map(webhookInfo) };
    },
  });

  registerResource(app, '/host/v1/webhooks/:webhookId', {
    async DELETE(request) {
      const id = endpointIdOf(request);
      if (!(await webhooks.deleteWebhook(id))) throw unknownEndpoint();
      return { status: 200, body: deletedView(id) };
    },
  });

  const action = (path: string, act: (id: string) => Promise<HostAnswer>) =>
    registerResource(app, `/host/v1/webhooks/:webhookId/${path}`, {
      POST: (request) => act(endpointIdOf(request)),
    });
  action('enable', async (id) => {
    if (!(await webhooks.enableWebhook(id, Date.now()))) throw unknownEndpoint();
    return { status: 200, body: enabledWebhookView(id) };
  });
  action('rotate-secret', async (id) => {
    const secret = await rotateWebhookSecret(webhooks, id, Date.now());
    if (secret === undefined) throw unknownEndpoint();
    return { status: 200, body: rotatedSecretView(id, secret) };
  });
  action('test', async (id) => {
    const eventId = await queueWebhookTest(webhooks, id, Date.now());
    if (eventId === undefined) throw unknownEndpoint();
    return { status: 200, body: queuedTestView(id, eventId) };
  });

  registerResource(app, '/host/v1/webhooks/:webhookId/attempts', {
    async GET(request) {
      const id = endpointIdOf(request);
      if ((await webhooks.findWebhook(id)) === undefined) throw unknownEndpoint();
      return { status: 200, body: (await webhooks.listWebhookAttempts(id)).map(attemptInfo) };
    },
  });
}
