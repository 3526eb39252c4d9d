import type {
  ClaimedWebhookEvent,
  WebhookAttemptRecord,
  WebhookEndpointRecord,
  WebhookEventType,
  WebhookStatus,
} from '../domain/webhook-records.js';

/** The webhook_endpoints columns every adapter reads, in one order. */
export const ENDPOINT_COLUMNS =
  'id, user_id, url, name, secret, previous_secret, previous_secret_expires_at, status, created_at, last_attempt_at, last_status';

/** A row of those columns, as both SQLite and PostgreSQL (int8 parsed as numbers) return it. */
export interface EndpointRow {
  readonly id: string;
  readonly user_id: string;
  readonly url: string;
  readonly name: string;
  readonly secret: string;
  readonly previous_secret: string | null;
  readonly previous_secret_expires_at: number | null;
  readonly status: string;
  readonly created_at: number;
  readonly last_attempt_at: number | null;
  readonly last_status: number | null;
}

export function endpointRecordOf(row: EndpointRow): WebhookEndpointRecord {
  return {
    id: row.id,
    userId: row.user_id,
    url: row.url,
    name: row.name,
    status: row.status as WebhookStatus,
    createdAt: row.created_at,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    lastAttemptAt: row.last_attempt_at,
    lastStatus: row.last_status,
  };
}

/** What a claim returns per event: the event's columns and its endpoint's. */
export type ClaimedRow = ClaimedEventColumns & ClaimedEndpointColumns;

interface ClaimedEventColumns {
  readonly endpoint_id: string;
  readonly seq: number;
  readonly id: string;
  readonly type: string;
  readonly from_at: number | null;
  readonly through_at: number | null;
  readonly attempts: number;
  readonly step_due_at: number | null;
  readonly created_at: number;
}

interface ClaimedEndpointColumns {
  readonly user_id: string;
  readonly url: string;
  readonly secret: string;
  readonly previous_secret: string | null;
  readonly previous_secret_expires_at: number | null;
  readonly last_delivered_at: number | null;
  /** Whether the endpoint's user was erased (SQLite answers 0 or 1). */
  readonly erased: boolean | number;
}

/** The user_id of an erased user's endpoint kept for its last call: no user id is empty. */
export const ERASED_OWNER = '';

/** The claim's columns of the endpoint that differ for an erased user's: its owner kept apart (storage/user-erasure.ts). */
export const CLAIMED_OWNER_COLUMNS =
  'coalesce(endpoint.erased_user_id, endpoint.user_id) AS user_id, endpoint.erased_user_id IS NOT NULL AS erased';

/** The previous secret signs beside the current one while it lives (docs/webhooks.md#the-call). */
export function claimedEventOf(row: ClaimedRow, now: number): ClaimedWebhookEvent {
  const previousLives =
    row.previous_secret !== null && row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now;
  return {
    endpointId: row.endpoint_id,
    userId: row.user_id,
    url: row.url,
    secrets: previousLives && row.previous_secret !== null ? [row.secret, row.previous_secret] : [row.secret],
    seq: row.seq,
    eventId: row.id,
    type: row.type as WebhookEventType,
    from: row.from_at,
    through: row.through_at,
    attempts: row.attempts,
    stepDueAt: row.step_due_at ?? undefined,
    lastDeliveredAt: row.last_delivered_at ?? undefined,
    createdAt: row.created_at,
    erased: row.erased === true || row.erased === 1,
  };
}

export const ATTEMPT_COLUMNS = 'endpoint_id, at, event_id, status, error, ms';

export interface AttemptRow {
  readonly endpoint_id: string;
  readonly at: number;
  readonly event_id: string;
  readonly status: number | null;
  readonly error: string | null;
  readonly ms: number;
}

export function attemptRecordOf(row: AttemptRow): WebhookAttemptRecord {
  return {
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    at: row.at,
    status: row.status,
    error: row.error,
    ms: row.ms,
  };
}

/** The endpoint keeps its last attempts, no more (docs/webhooks.md#the-call). */
export const ATTEMPTS_KEPT = 50;
