/**
 * What the store keeps of webhooks (CONTRACT.md section 8): each user's endpoints (5 at most),
 * their pending events (the outbox, written in the transaction of the change it covers), and
 * the last 50 attempts of each endpoint. Every backend implements it; the shared storage
 * suite holds them to the same behaviour.
 *
 * Events of an endpoint are numbered in order (`seq`). The newest one is *open* while it has
 * not been attempted: a change of the user extends its `through`; once attempted (or leased
 * to a sender), it is fixed, retried with the same id, and the next change opens a new one.
 * So an endpoint has at most one event in flight and one collecting, and events go out in
 * order of their `from`.
 */

export type WebhookStatus = 'enabled' | 'disabled';
export type WebhookEventType = 'meals.changed' | 'webhook.test';

export interface WebhookEndpointRecord {
  /** `wh_` + random. */
  readonly id: string;
  readonly userId: string;
  readonly url: string;
  readonly name: string;
  readonly status: WebhookStatus;
  readonly createdAt: number;
  /** The current secret (`whsec_` + base64 of 32 bytes): never logged, never shown after creation. */
  readonly secret: string;
  /** The secret before the last rotation, signing beside the current one until it expires. */
  readonly previousSecret: string | null;
  readonly previousSecretExpiresAt: number | null;
  readonly lastAttemptAt: number | null;
  /** The HTTP status of the last attempt; null when it had none (refused, timeout) or none was made. */
  readonly lastStatus: number | null;
}

export interface NewWebhookEndpoint {
  readonly id: string;
  readonly userId: string;
  readonly url: string;
  readonly name: string;
  readonly secret: string;
  readonly createdAt: number;
}

export type CreateWebhookResult =
  | { readonly ok: true; readonly endpoint: WebhookEndpointRecord }
  | { readonly ok: false; readonly reason: 'too_many_webhooks' | 'duplicate_id' };

/** An event leased to this sender: what a call needs. */
export interface ClaimedWebhookEvent {
  readonly endpointId: string;
  readonly userId: string;
  readonly url: string;
  /** The secrets to sign with: the current one, and the previous one while it lives. */
  readonly secrets: readonly string[];
  readonly seq: number;
  /** `msg_` + random: the same on every retry of this event. */
  readonly eventId: string;
  readonly type: WebhookEventType;
  /** modifiedAt of the oldest and the newest change covered (meals.changed only). */
  readonly from: number | null;
  readonly through: number | null;
  /** Attempts made before this one. */
  readonly attempts: number;
  /** When the event was made (the body's `timestamp`: the same on every retry). */
  readonly createdAt: number;
}

/** What became of an attempt: the event delivered, retried at a time, or the endpoint disabled. */
export type WebhookAttemptFate =
  { readonly kind: 'delivered' } | { readonly kind: 'retry'; readonly at: number } | { readonly kind: 'disable' };

export interface WebhookAttemptRecord {
  readonly endpointId: string;
  readonly eventId: string;
  /** Epoch ms when the attempt started. */
  readonly at: number;
  /** The HTTP status answered, or null (refused address, timeout, connection failure). */
  readonly status: number | null;
  /** Null, or a short reason: `refused_address`, `timeout`, `tls`, `connection`, `dns`. */
  readonly error: string | null;
  readonly ms: number;
}

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
   */
  claimDueWebhookEvents(now: number, leaseMs: number, max: number): Promise<ClaimedWebhookEvent[]>;
  /** When the next event is due (enabled endpoints, leases included); undefined when none is pending. */
  nextWebhookDueAt(): Promise<number | undefined>;
  /**
   * Records an attempt of a claimed event in one transaction: the attempt (the endpoint keeps
   * its last 50), the endpoint's last attempt and status, and the event's fate: removed when
   * delivered; otherwise its attempt count up, its lease released and its next attempt at
   * `fate.at`; or the endpoint disabled (the event stays pending, for when it is enabled).
   */
  recordWebhookAttempt(
    event: ClaimedWebhookEvent,
    attempt: WebhookAttemptRecord,
    fate: WebhookAttemptFate,
  ): Promise<void>;
  /** Pending events (enabled or not) and the oldest one's creation time, for /metrics. */
  webhookBacklog(): Promise<{ readonly pending: number; readonly oldestCreatedAt: number | undefined }>;
}
