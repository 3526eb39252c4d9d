import { newWebhookEventIds } from '../../domain/webhook-ids.js';
import { MAX_WEBHOOKS_PER_USER } from '../../domain/webhook-endpoint.js';
import { FEED_CHANNEL } from './postgres-feed-signals.js';

/** A webhook test event queued meanwhile with the seq this change's event takes: the queueing runs again. */
const MAX_QUEUE_ATTEMPTS = 3;

/**
 * What the commit step takes from JS, the last three arguments of every function that ends in
 * it (postgres-functions-commit.ts): the channel every listening process hears, an event id for
 * each endpoint the user may have, from the one maker of event ids, and the queueing's tries.
 * The commit step is the one step that ends every change of a user's meals on PostgreSQL
 * (docs/architecture.md#one-way-a-change-flows), called by the single-meal functions and, once
 * per user and batch, by the batch statement (postgres-batch-statement.ts).
 */
export function commitInputs(): [channel: string, eventIds: string[], queueAttempts: number] {
  return [FEED_CHANNEL, newWebhookEventIds(MAX_WEBHOOKS_PER_USER), MAX_QUEUE_ATTEMPTS];
}

/**
 * The batch statement's commit inputs for `users` users: the channel, the event ids (each user,
 * in user id order, takes its own `perUser` of them), `perUser`, and the queueing's tries.
 */
export function batchCommitInputs(
  users: number,
): [channel: string, eventIds: string[], perUser: number, queueAttempts: number] {
  return [FEED_CHANNEL, newWebhookEventIds(MAX_WEBHOOKS_PER_USER * users), MAX_WEBHOOKS_PER_USER, MAX_QUEUE_ATTEMPTS];
}
