import type { CallTraits } from './guarded-concerns.js';
import type {
  ClaimedWebhookEvent,
  NewWebhookEndpoint,
  WebhookAttemptFate,
  WebhookAttemptRecord,
  WebhookEndpointRecord,
} from '../domain/webhook-records.js';

/**
 * Webhook endpoints (5 per user), their pending events and their attempts (domain/webhook-records.ts).
 * The events a change queues are written by the backend's commit step, in the change's own
 * transaction, so no change commits without its event.
 */
export interface WebhookStore {
  /** Stores a new endpoint unless its id is taken or the user has `maxPerUser` already (exact under concurrency). */
  createWebhook(endpoint: NewWebhookEndpoint, maxPerUser: number): Promise<CreateWebhookResult>;
  /** A user's endpoints, oldest first. */
  listWebhooks(userId: string): Promise<WebhookEndpointRecord[]>;
  findWebhook(id: string): Promise<WebhookEndpointRecord | undefined>;
  /** Removes the endpoint with its events and attempts; false when there was none. */
  deleteWebhook(id: string): Promise<boolean>;
  /**
   * Enables the endpoint again: its pending events are due now, their attempt count from zero
   * (the retry schedule starts over). False when there is no such endpoint.
   */
  enableWebhook(id: string, now: number): Promise<boolean>;
  /** A new secret; the current one keeps signing until `previousExpiresAt`. False when unknown. */
  rotateWebhookSecret(id: string, secret: string, previousExpiresAt: number): Promise<boolean>;
  /** Queues a `webhook.test` event with this id, due now. False when the endpoint is unknown. */
  queueWebhookTest(id: string, eventId: string, now: number): Promise<boolean>;
  /** The last attempts of the endpoint, newest first (50 are kept). */
  listWebhookAttempts(id: string): Promise<WebhookAttemptRecord[]>;

  /**
   * Leases up to `max` due events to this sender until `now + leaseMs`: for each enabled
   * endpoint only its first pending event (lowest seq), when its next attempt is due and it
   * is not leased to another sender whose lease still runs. On PostgreSQL with FOR UPDATE SKIP
   * LOCKED, so that senders on many instances never take the same event; a sender that dies
   * leaves its lease to expire. A leased event is fixed: changes go into the next event.
   * `skip`: endpoints this sender leaves to others (their address is refused by its flags).
   */
  claimDueWebhookEvents(
    now: number,
    leaseMs: number,
    max: number,
    skip?: readonly string[],
  ): Promise<ClaimedWebhookEvent[]>;
  /** When the next event is due (enabled endpoints but `skip`, leases included); undefined when none is pending. */
  nextWebhookDueAt(skip?: readonly string[]): Promise<number | undefined>;
  /**
   * Records an attempt of a claimed event in one transaction: the attempt (the endpoint keeps
   * its last 50), the endpoint's last attempt and status, and the event's fate: removed when
   * delivered; otherwise its lease released and its next try at `fate.at` (its step count up
   * when the try was a step); or the endpoint disabled (the event stays pending, for when it is
   * enabled); or, `release`, only its lease released, the event due for another sender.
   */
  recordWebhookAttempt(
    event: ClaimedWebhookEvent,
    attempt: WebhookAttemptRecord,
    fate: WebhookAttemptFate,
  ): Promise<void>;
  /** Pending events (enabled or not) and the oldest one's creation time, for /metrics. */
  webhookBacklog(): Promise<{ readonly pending: number; readonly oldestCreatedAt: number | undefined }>;
}

/** `duplicate_id`: an endpoint with that id exists already (a creation sent twice); nothing was changed. */
export type CreateWebhookResult =
  | { readonly ok: true; readonly endpoint: WebhookEndpointRecord }
  | { readonly ok: false; readonly reason: 'too_many_webhooks' | 'duplicate_id' };

/** The sender's writes can wait for its next turn. */
export const WEBHOOK_STORE_TRAITS: CallTraits<WebhookStore> = {
  claimDueWebhookEvents: ['background'],
  recordWebhookAttempt: ['background'],
};
