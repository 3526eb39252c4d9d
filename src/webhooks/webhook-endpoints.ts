import {
  type ChosenWebhookId,
  MAX_WEBHOOKS_PER_USER,
  PREVIOUS_SECRET_LIFETIME_MS,
  type RegisteredWebhook,
  type WebhookRefusal,
  type WebhookRequest,
  webhookNameProblem,
  webhookUrlProblem,
} from '../domain/webhook-endpoint.js';
import { newWebhookEndpointId, newWebhookEventId, newWebhookSecret } from '../domain/webhook-ids.js';
import type { WebhookStore } from '../storage/webhook-store.js';
import { webhookHostProblem } from './webhook-address.js';

/**
 * Registers an endpoint with a new id (or the caller's chosen one) and a new secret: the one
 * place endpoints are made. The secret is in the answer for the caller to show once.
 */
export function registerWebhook(
  webhooks: WebhookStore,
  request: WebhookRequest,
  now: number,
): Promise<RegisteredWebhook>;
export function registerWebhook(
  webhooks: WebhookStore,
  request: WebhookRequest & ChosenWebhookId,
  now: number,
): Promise<RegisteredWebhook<WebhookRefusal>>;
export async function registerWebhook(
  webhooks: WebhookStore,
  request: WebhookRequest & Partial<ChosenWebhookId>,
  now: number,
): Promise<RegisteredWebhook<WebhookRefusal>> {
  const urlProblem = webhookUrlProblem(request.url) ?? webhookHostProblem(request.url);
  if (urlProblem !== undefined) return { ok: false, reason: 'invalid_url', message: urlProblem };
  const nameProblem = webhookNameProblem(request.name);
  if (nameProblem !== undefined) return { ok: false, reason: 'invalid_name', message: nameProblem };
  const id = request.id ?? newWebhookEndpointId();
  const result = await webhooks.createWebhook(
    {
      id,
      userId: request.userId,
      url: request.url,
      name: request.name,
      secret: newWebhookSecret(),
      createdAt: now,
    },
    MAX_WEBHOOKS_PER_USER,
  );
  if (result.ok) return result;
  if (result.reason === 'duplicate_id') {
    // A chosen id taken: the same creation sent twice. A new random one taken would be a bug.
    if (request.id === undefined) throw new Error(`the new webhook id ${id} is taken`);
    return { ok: false, reason: 'duplicate_id', message: `the webhook endpoint ${id} exists already` };
  }
  return {
    ok: false,
    reason: 'too_many_webhooks',
    message: `user ${request.userId} already has ${MAX_WEBHOOKS_PER_USER} webhook endpoints: delete one first`,
  };
}

/** A new secret for the endpoint; the current one signs beside it for 24 hours. Undefined when unknown. */
export async function rotateWebhookSecret(
  webhooks: WebhookStore,
  id: string,
  now: number,
): Promise<string | undefined> {
  const secret = newWebhookSecret();
  return (await webhooks.rotateWebhookSecret(id, secret, now + PREVIOUS_SECRET_LIFETIME_MS)) ? secret : undefined;
}

/** Queues a `webhook.test` call; its event id, or undefined when the endpoint is unknown. */
export async function queueWebhookTest(webhooks: WebhookStore, id: string, now: number): Promise<string | undefined> {
  const eventId = newWebhookEventId();
  return (await webhooks.queueWebhookTest(id, eventId, now)) ? eventId : undefined;
}
