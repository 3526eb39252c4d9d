/**
 * Webhooks as the store keeps them (docs/webhooks.md): each user's endpoints, their pending
 * events and the last attempts of each endpoint.
 *
 * Events of an endpoint are numbered in order (`seq`). The newest one is *open* while it has
 * not been attempted: a change of the user extends its `through`; once attempted (or leased
 * to a sender), it is fixed, retried with the same id, and the next change opens a new one.
 * So an endpoint has at most one event in flight and one collecting, sent in order.
 */

export type WebhookStatus = 'enabled' | 'disabled';
/** `user.erased`: the endpoint's user was erased (docs/webhooks.md#when-a-user-is-erased), its last event. */
export type WebhookEventType = 'meals.changed' | 'webhook.test' | 'user.erased';

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

/** An event leased to a sender: what a call needs. */
export interface ClaimedWebhookEvent {
  readonly endpointId: string;
  readonly userId: string;
  readonly url: string;
  /** The secrets to sign with: the current one, and the previous one while it lives. */
  readonly secrets: readonly string[];
  readonly seq: number;
  /** `msg_` + random (domain/webhook-ids.ts): the same on every retry of this event. */
  readonly eventId: string;
  readonly type: WebhookEventType;
  /** modifiedAt of the oldest and the newest change covered (meals.changed only). */
  readonly from: number | null;
  readonly through: number | null;
  /** Steps of the retry schedule taken before this attempt (extra tries do not count). */
  readonly attempts: number;
  /**
   * When the schedule's next step is due; undefined: this attempt is one. An attempt before it
   * is an extra try, made while the receiver is up (domain/webhook-retry.ts).
   */
  readonly stepDueAt: number | undefined;
  /** When the endpoint last delivered an event; undefined: never (or not since this was recorded). */
  readonly lastDeliveredAt: number | undefined;
  /** When the event was made (the body's `timestamp`: the same on every retry). */
  readonly createdAt: number;
  /** The endpoint's user was erased: it lives only for its `user.erased` event. */
  readonly erased: boolean;
}

/** What became of an attempt: the event delivered, retried at a time, or the endpoint disabled. */
export type WebhookAttemptFate =
  | { readonly kind: 'delivered' }
  /** `at`: the next attempt; `stepAt`: the schedule's next step; `counted`: this attempt was a step. */
  | { readonly kind: 'retry'; readonly at: number; readonly stepAt: number; readonly counted: boolean }
  | { readonly kind: 'disable' }
  /** This process may not call the endpoint (its flags refuse the address): the event is left, due, to one that may. */
  | { readonly kind: 'release' }
  /** An erased user's endpoint has had its last call (delivered, or given up): it goes, with its events and attempts. */
  | { readonly kind: 'forget' };

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
