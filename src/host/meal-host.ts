import { parseDuration } from '../domain/duration.js';
import { formatInstant } from '../domain/instant.js';
import { issueApiKey } from '../keys/issue-api-key.js';
import { MAX_ACTIVE_KEYS } from '../domain/key-request.js';
import { queueWebhookTest, registerWebhook, rotateWebhookSecret } from '../webhooks/webhook-endpoints.js';
import type { MealContent, MealType } from '../domain/meal.js';
import { isValidUserId } from '../domain/user-id.js';
import { parseMealRecord } from '../meals-io/meal-record.js';
import { openStorage } from '../storage/open-storage.js';
import { type ApiKeyRecord } from '../domain/key-records.js';
import { type Storage } from '../storage/storage.js';
import type { WebhookAttemptRecord, WebhookEndpointRecord } from '../domain/webhook-records.js';
import { isActiveKey } from '../domain/api-key.js';
import { mintLoginLink } from '../web/login-link.js';
import { MealHostError, type MealHostErrorCode } from './host-error.js';

/** A meal as the app records it: the JSON form of a `meals import` record. */
export interface MealInput {
  /** Optional: one is made when absent. Unique across all users. */
  readonly id?: string;
  readonly title?: string | null;
  readonly description?: string | null;
  readonly type: MealType;
  /** When it was eaten: an ISO 8601 date-time (`2025-03-01T12:15:00Z`). */
  readonly date: string;
  readonly caloriesTotal?: number | null;
  readonly proteins_g?: number | null;
  readonly fats_g?: number | null;
  readonly carbs_g?: number | null;
  readonly fibers_g?: number | null;
  readonly sodium_mg?: number | null;
  readonly iron_mg?: number | null;
  readonly calcium_mg?: number | null;
}

export interface UpsertOutcome {
  /** The meals' ids, in input order (made ones included), unchanged ones too. */
  readonly ids: readonly string[];
  readonly created: number;
  readonly updated: number;
  /**
   * Meals equal in every field to the user's live meal of that id: not written, their
   * modifiedAt kept, and no API client hears of them (CONTRACT.md section 7, `meals import`).
   */
  readonly unchanged: number;
}

export interface CreatedKey {
  readonly id: string;
  /** The key itself: hand it to the user once; it is stored only as a digest. */
  readonly key: string;
  readonly name: string;
  readonly createdAt: string;
  readonly expiresAt: string | null;
}

/** A key as `keys list` shows it: never the secret. */
export interface KeyInfo {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly status: 'active' | 'revoked' | 'expired';
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

export interface CreatedWebhook {
  readonly id: string;
  readonly url: string;
  readonly name: string;
  /** The signing secret (`whsec_…`): hand it to the user once; it is never shown again. */
  readonly secret: string;
  readonly createdAt: string;
}

/** A webhook endpoint as `webhooks list` shows it: never a secret. */
export interface WebhookInfo {
  readonly id: string;
  readonly url: string;
  readonly name: string;
  /** `disabled` after the last retry failed, or on `410 Gone`, until enableWebhook. */
  readonly status: 'enabled' | 'disabled';
  readonly createdAt: string;
  readonly lastAttemptAt: string | null;
  /** The HTTP status of the last attempt; null when it had none (refused, timeout) or none was made. */
  readonly lastStatus: number | null;
}

/** One call to an endpoint, as `webhooks attempts` shows it. */
export interface WebhookAttemptInfo {
  readonly at: string;
  readonly eventId: string;
  /** The HTTP status answered, or null (refused address, timeout, connection failure). */
  readonly status: number | null;
  /** Null, or a short reason: `refused_address`, `timeout`, `tls`, `connection`, `dns`. */
  readonly error: string | null;
  readonly ms: number;
}

export interface MealHostOptions {
  /**
   * The app page's address as browsers reach it (`https://meals.example.com`), the base of
   * login links (the library reads no environment variable: pass it).
   */
  readonly publicUrl?: string;
}

/** The diet app's back end's handle on the store: see index.ts. */
export interface MealHost {
  upsertMeals(userId: string, meals: readonly MealInput[]): Promise<UpsertOutcome>;
  deleteMeal(userId: string, mealId: string): Promise<'deleted' | 'already_deleted' | 'not_found'>;
  createKey(userId: string, options?: { name?: string; expiresIn?: string }): Promise<CreatedKey>;
  listKeys(userId: string): Promise<KeyInfo[]>;
  revokeKey(userId: string, keyId: string): Promise<boolean>;
  createLoginLink(userId: string, options?: { publicUrl?: string }): Promise<{ url: string; expiresAt: string }>;
  createWebhook(userId: string, url: string, options?: { name?: string }): Promise<CreatedWebhook>;
  listWebhooks(userId: string): Promise<WebhookInfo[]>;
  /** False when the user has no such endpoint (another user's is as unknown as a made-up id). */
  deleteWebhook(userId: string, webhookId: string): Promise<boolean>;
  /** Enables the endpoint again: its pending calls are sent now, their retries counted from zero. */
  enableWebhook(userId: string, webhookId: string): Promise<boolean>;
  /** A new secret, shown once; the previous one signs beside it for 24 hours. */
  rotateWebhookSecret(userId: string, webhookId: string): Promise<{ id: string; secret: string } | undefined>;
  /** Queues a `webhook.test` call; its `webhook-id`. */
  testWebhook(userId: string, webhookId: string): Promise<{ id: string; eventId: string } | undefined>;
  /** The endpoint's last 50 attempts, newest first ([] when the user has no such endpoint). */
  listWebhookAttempts(userId: string, webhookId: string): Promise<WebhookAttemptInfo[]>;
  close(): Promise<void>;
}

const orNull = (ms: number | null) => (ms === null ? null : formatInstant(ms));

function checkUserId(userId: string): void {
  if (!isValidUserId(userId)) {
    throw new MealHostError('invalid_user_id', 'a user id is 1 to 200 printable characters');
  }
}

function keyInfo(record: ApiKeyRecord, now: number): KeyInfo {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    status: record.revokedAt !== null ? 'revoked' : isActiveKey(record, now) ? 'active' : 'expired',
    createdAt: formatInstant(record.createdAt),
    expiresAt: orNull(record.expiresAt),
    lastUsedAt: orNull(record.lastUsedAt),
    revokedAt: orNull(record.revokedAt),
  };
}

const WEBHOOK_REFUSALS = {
  invalid_url: 'invalid_webhook_url',
  invalid_name: 'invalid_argument',
  too_many_webhooks: 'too_many_webhooks',
} as const satisfies Record<string, MealHostErrorCode>;

function webhookInfo(record: WebhookEndpointRecord): WebhookInfo {
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

function attemptInfo(record: WebhookAttemptRecord): WebhookAttemptInfo {
  return {
    at: formatInstant(record.at),
    eventId: record.eventId,
    status: record.status,
    error: record.error,
    ms: record.ms,
  };
}

function originOf(publicUrl: string): string {
  let url: URL | undefined;
  try {
    url = new URL(publicUrl);
  } catch {
    url = undefined;
  }
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.pathname !== '/') {
    throw new MealHostError('invalid_argument', `publicUrl must be an origin such as https://meals.example.com`);
  }
  return url.origin;
}

/** The host module over an open store. */
export function createMealHost(storage: Storage, options: MealHostOptions = {}): MealHost {
  const defaultPublicUrl = options.publicUrl === undefined ? undefined : originOf(options.publicUrl);
  /** Only the user's own endpoint: another user's id is as unknown as a made-up one. */
  async function ownsWebhook(userId: string, webhookId: string): Promise<boolean> {
    checkUserId(userId);
    return (await storage.webhooks.findWebhook(webhookId))?.userId === userId;
  }
  return {
    async upsertMeals(userId, meals) {
      checkUserId(userId);
      // The rules and the write of `meals import`: every record checked first, then one
      // transaction on the user's change clock (CONTRACT.md section 2, "No change is ever missed").
      const contents: MealContent[] = [];
      meals.forEach((input, index) => {
        const result = parseMealRecord(input as unknown as Readonly<Record<string, unknown>>, 'json');
        if (!result.ok) throw new MealHostError('invalid_meal', `meal ${index}: ${result.message}`, index);
        contents.push(result.meal);
      });
      if (contents.length === 0) return { ids: [], created: 0, updated: 0, unchanged: 0 };
      const result = await storage.writes.upsertMeals(userId, contents, Date.now());
      if (!result.ok) {
        const id = contents[result.index]?.id ?? '';
        throw new MealHostError(
          'foreign_meal_id',
          `meal ${result.index}: id ${JSON.stringify(id)} belongs to another user`,
          result.index,
        );
      }
      const { created, updated, unchanged } = result;
      return { ids: contents.map((meal) => meal.id), created, updated, unchanged };
    },

    async deleteMeal(userId, mealId) {
      checkUserId(userId);
      return storage.writes.deleteMeal(userId, mealId, Date.now());
    },

    async createKey(userId, keyOptions = {}) {
      checkUserId(userId);
      let lifetimeMs: number | undefined;
      if (keyOptions.expiresIn !== undefined) {
        lifetimeMs = parseDuration(keyOptions.expiresIn);
        if (lifetimeMs === undefined)
          throw new MealHostError('invalid_argument', 'expiresIn must look like 90s, 30m, 12h or 30d');
      }
      const issued = await issueApiKey(storage.keys, { userId, name: keyOptions.name ?? '', lifetimeMs }, Date.now());
      if (!issued.ok)
        throw new MealHostError('too_many_keys', `user ${userId} already has ${MAX_ACTIVE_KEYS} active keys`);
      const { key, record } = issued;
      return {
        id: record.id,
        key,
        name: record.name,
        createdAt: formatInstant(record.createdAt),
        expiresAt: orNull(record.expiresAt),
      };
    },

    async listKeys(userId) {
      checkUserId(userId);
      const now = Date.now();
      return (await storage.keys.listApiKeys(userId)).map((record) => keyInfo(record, now));
    },

    async revokeKey(userId, keyId) {
      checkUserId(userId);
      // Only the user's own key: another user's key id is as unknown as a made-up one.
      if (!(await storage.keys.listApiKeys(userId)).some((record) => record.id === keyId)) return false;
      return (await storage.keys.revokeApiKey(keyId, Date.now())) !== undefined;
    },

    async createLoginLink(userId, linkOptions = {}) {
      checkUserId(userId);
      const base = linkOptions.publicUrl === undefined ? defaultPublicUrl : originOf(linkOptions.publicUrl);
      if (base === undefined) {
        throw new MealHostError('invalid_argument', 'no publicUrl: pass it to openMealHost or createLoginLink');
      }
      const link = await mintLoginLink(storage, userId, base, Date.now());
      return { url: link.url, expiresAt: formatInstant(link.expiresAt) };
    },

    async createWebhook(userId, url, webhookOptions = {}) {
      checkUserId(userId);
      const result = await registerWebhook(
        storage.webhooks,
        { userId, url, name: webhookOptions.name ?? '' },
        Date.now(),
      );
      if (!result.ok) throw new MealHostError(WEBHOOK_REFUSALS[result.reason], result.message);
      const { endpoint } = result;
      return {
        id: endpoint.id,
        url: endpoint.url,
        name: endpoint.name,
        secret: endpoint.secret,
        createdAt: formatInstant(endpoint.createdAt),
      };
    },

    async listWebhooks(userId) {
      checkUserId(userId);
      return (await storage.webhooks.listWebhooks(userId)).map(webhookInfo);
    },

    async deleteWebhook(userId, webhookId) {
      return (await ownsWebhook(userId, webhookId)) && storage.webhooks.deleteWebhook(webhookId);
    },

    async enableWebhook(userId, webhookId) {
      return (await ownsWebhook(userId, webhookId)) && storage.webhooks.enableWebhook(webhookId, Date.now());
    },

    async rotateWebhookSecret(userId, webhookId) {
      if (!(await ownsWebhook(userId, webhookId))) return undefined;
      const secret = await rotateWebhookSecret(storage.webhooks, webhookId, Date.now());
      return secret === undefined ? undefined : { id: webhookId, secret };
    },

    async testWebhook(userId, webhookId) {
      if (!(await ownsWebhook(userId, webhookId))) return undefined;
      const eventId = await queueWebhookTest(storage.webhooks, webhookId, Date.now());
      return eventId === undefined ? undefined : { id: webhookId, eventId };
    },

    async listWebhookAttempts(userId, webhookId) {
      if (!(await ownsWebhook(userId, webhookId))) return [];
      return (await storage.webhooks.listWebhookAttempts(webhookId)).map(attemptInfo);
    },

    close: () => storage.close(),
  };
}

/**
 * Opens the store a location names (a SQLite file path, or `postgres://…` where that adapter
 * is built in), bringing its schema up to date, as every command does.
 */
export async function openMealHost(location: string, options: MealHostOptions = {}): Promise<MealHost> {
  return createMealHost(await openStorage(location), options);
}
