import { isActiveKey } from '../domain/api-key.js';
import { formatInstant } from '../domain/instant.js';
import type { ApiKeyRecord } from '../domain/key-records.js';
import type { ServiceTokenRecord } from '../domain/service-token-records.js';
import type { WebhookAttemptRecord, WebhookEndpointRecord } from '../domain/webhook-records.js';
import type { ErasedCounts } from '../storage/user-erasure.js';
import type { LoginLink } from '../web/login-link.js';
import type { KeyInfo, ServiceTokenInfo, WebhookAttemptInfo, WebhookInfo } from './meal-host-types.js';

/** An instant as the host hands it out (ISO 8601), or null. */
export const orNull = (ms: number | null) => (ms === null ? null : formatInstant(ms));

/** A key as `listKeys` gives it: its status worked out at `now`, never the secret. */
export function keyInfo(record: ApiKeyRecord, now: number): KeyInfo {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    status: record.revokedAt !== null ? 'revoked' : isActiveKey(record, now) ? 'active' : 'expired',
    createdAt: formatInstant(record.createdAt),
    expiresAt: orNull(record.expiresAt),
    lastUsedAt: orNull(record.lastUsedAt),
    revokedAt: orNull(record.revokedAt),
    appId: record.appId,
  };
}

/** An endpoint as `listWebhooks` gives it: never a secret. */
export function webhookInfo(record: WebhookEndpointRecord): WebhookInfo {
  return {
    id: record.id,
    url: record.url,
    name: record.name,
    status: record.status,
    createdAt: formatInstant(record.createdAt),
    lastAttemptAt: orNull(record.lastAttemptAt),
    lastStatus: record.lastStatus,
  };
}

/** One call to an endpoint, as `listWebhookAttempts` gives it. */
export function attemptInfo(record: WebhookAttemptRecord): WebhookAttemptInfo {
  return {
    at: formatInstant(record.at),
    eventId: record.eventId,
    status: record.status,
    error: record.error,
    ms: record.ms,
  };
}

/** A service token as `listServiceTokens` and `service-tokens list --json` give it: never the secret. */
export function serviceTokenInfo(record: ServiceTokenRecord): ServiceTokenInfo {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    createdAt: formatInstant(record.createdAt),
    lastUsedAt: orNull(record.lastUsedAt),
    revokedAt: orNull(record.revokedAt),
  };
}

/** A service token just made, as `service-tokens create --json` shows it (and `createServiceToken`): once. */
export function createdServiceTokenView(token: string, record: ServiceTokenRecord) {
  return { id: record.id, token, name: record.name, createdAt: formatInstant(record.createdAt) };
}

/** A key as `keys list --json` shows it (and the host API's list): never the secret. */
export function keyListView(record: ApiKeyRecord) {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    createdAt: formatInstant(record.createdAt),
    expiresAt: orNull(record.expiresAt),
    lastUsedAt: orNull(record.lastUsedAt),
    revokedAt: orNull(record.revokedAt),
    appId: record.appId,
  };
}

/** A key just made, as `keys create --json` shows it (and the host API's 201): the key itself, once. */
export function createdKeyView(key: string, record: ApiKeyRecord) {
  return {
    id: record.id,
    key,
    userId: record.userId,
    name: record.name,
    createdAt: formatInstant(record.createdAt),
    expiresAt: orNull(record.expiresAt),
  };
}

/** An endpoint just registered, as `webhooks create --json` shows it (and the host API's 201): its secret, once. */
export function createdWebhookView(endpoint: WebhookEndpointRecord) {
  return {
    id: endpoint.id,
    userId: endpoint.userId,
    url: endpoint.url,
    name: endpoint.name,
    secret: endpoint.secret,
    createdAt: formatInstant(endpoint.createdAt),
  };
}

/** A key or service token just revoked, as `… revoke --json` shows it (and the host API's 200). */
export const revokedView = (id: string) => ({ id, revoked: true as const });

/** A user just erased, as `users erase --json` shows it (and the host API's 200): what there was. */
export const erasedUserView = (userId: string, erased: ErasedCounts) => ({
  userId,
  erased: { meals: erased.meals, keys: erased.keys, webhooks: erased.webhooks },
});

/** A meal or endpoint just deleted, as `… delete --json` shows it (and the host API's 200). */
export const deletedView = (id: string) => ({ id, deleted: true as const });

/** An endpoint switched back on, as `webhooks enable --json` shows it (and the host API's 200). */
export const enabledWebhookView = (id: string) => ({ id, enabled: true as const });

/** An endpoint's new signing secret, as `webhooks rotate-secret --json` shows it (and the host API's 200): once. */
export const rotatedSecretView = (id: string, secret: string) => ({ id, secret });

/** A test call queued, as `webhooks test --json` shows it (and the host API's 200). */
export const queuedTestView = (id: string, eventId: string) => ({ id, eventId });

/** A sign-in link, as `users login-link --json` shows it (and the host API's 201). */
export const loginLinkView = (link: LoginLink) => ({ url: link.url, expiresAt: formatInstant(link.expiresAt) });
