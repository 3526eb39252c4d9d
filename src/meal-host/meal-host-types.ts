import type { MealRecordJson } from '../domain/meal-fields.js';
import type { MealJson } from '../domain/meal-json.js';

/**
 * A meal as the app records it: the JSON form of a `meals import` record, its fields those of
 * the Meal (docs/api.md#the-call). `type` and `date` are required; `date` is an ISO 8601
 * date-time with its offset (`2025-03-01T12:15:00+01:00`), whose numeric offset is the meal's
 * `utcOffset` unless the record gives one; an absent `id` is made.
 */
export type MealInput = MealRecordJson & {
  /**
   * Optional: the version the app gives this save of the meal (its row version, or its update
   * time in ms), an integer 0 … 2^53 - 1. A save or delete whose version is not greater than
   * the one stored for the meal changes nothing and counts as stale, so that a retried or late
   * write never puts an older version over a newer one (docs/host-api.md#ordering-saves-sourceversion).
   * Null, as getMeal gives a meal never given one, is no version.
   */
  readonly sourceVersion?: number | null;
  /** Read-only, as getMeal gives it: ignored, so that a meal read can be saved back (docs/host-api.md#a-meal-read-and-saved-back). */
  readonly modifiedAt?: string;
  /** Read-only, as getMeal gives a live meal: only `false` (a tombstone is made by deleteMeal). */
  readonly deleted?: false;
};

export interface UpsertOutcome {
  /** The meals' ids, in input order (made ones included), unchanged ones too. */
  readonly ids: readonly string[];
  readonly created: number;
  readonly updated: number;
  /**
   * Meals equal in every field to the user's live meal of that id: not written, their
   * modifiedAt kept, and no API client hears of them, as in `meals import`
   * (docs/app.md#the-back-end-meal-exporthost).
   */
  readonly unchanged: number;
  /** Meals whose sourceVersion was not greater than the stored one: not written (MealInput.sourceVersion). */
  readonly stale: number;
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
  /** The app the person granted the key to (docs/host-api.md#apps-connect); null for a key made otherwise. */
  readonly appId: string | null;
}

export interface CreatedServiceToken {
  readonly id: string;
  /** The token itself (`mxs_…`): shown once, stored only as a digest (docs/host-api.md#service-tokens). */
  readonly token: string;
  readonly name: string;
  readonly createdAt: string;
}

/** A service token as `service-tokens list` shows it: never the secret. */
export interface ServiceTokenInfo {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

/** A third-party app as `apps list` shows it (docs/host-api.md#apps-connect): never its secret. */
export interface AppInfo {
  /** Its OAuth client_id. */
  readonly id: string;
  readonly name: string;
  readonly redirectUris: string[];
  readonly homepageUrl: string | null;
  readonly createdAt: string;
}

export interface CreatedApp extends AppInfo {
  /** The client secret (`mxa_…`): hand it to the app's developer once; it is stored only as a digest. */
  readonly clientSecret: string;
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

/**
 * One meal's record as saveMeal takes it: a MealInput, whose id, when given (a meal getMeal
 * read), must be the mealId saveMeal is given.
 */
export type MealRecord = MealInput;

/** What became of one saved meal, as the host API's PUT answers it. */
export interface SavedMeal {
  readonly id: string;
  /** `unchanged`: equal to the live meal, nothing written; `stale`: an older sourceVersion, nothing written. */
  readonly outcome: 'created' | 'updated' | 'unchanged' | 'stale';
  /** The meal's modifiedAt after the call. */
  readonly modifiedAt: string;
}

/** A meal as the feed shows it with includeDeleted (a Meal with `deleted: false`, or a tombstone), and its version. */
export type StoredMealInfo =
  | (MealJson & { readonly deleted: false; readonly sourceVersion: number | null })
  | { readonly id: string; readonly modifiedAt: string; readonly deleted: true; readonly sourceVersion: number | null };

/** One meal of the app's history: a MealInput with its id and the user it is for. */
export type HistoryInput = MealInput & { readonly userId: string; readonly id: string };

/** What importHistory did: records taken, by outcome, and the batches committed. */
export interface ImportedHistory {
  readonly imported: number;
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly stale: number;
  readonly batches: number;
}

/** The diet app's back end's handle on the store: see index.ts. */
export interface MealHost {
  upsertMeals(userId: string, meals: readonly MealInput[]): Promise<UpsertOutcome>;
  /**
   * The app's history, every user's meals (docs/host-api.md#importing-the-apps-history):
   * committed in batches of whole users as they come; the first bad one throws invalid_meal
   * (or id_taken) with its index, and the batches before it stay: call again with the same
   * meals once it is fixed, what is stored is met as unchanged.
   */
  importHistory(meals: Iterable<HistoryInput> | AsyncIterable<HistoryInput>): Promise<ImportedHistory>;
  /**
   * Saves one meal as the host API's PUT does (docs/host-api.md#saving-and-deleting-meals):
   * invalid_meal for a record that breaks the rules, id_taken for another user's id.
   */
  saveMeal(userId: string, mealId: string, record: MealRecord): Promise<SavedMeal>;
  /** The meal as the feed shows it with includeDeleted, plus its sourceVersion; undefined when the user has none. */
  getMeal(userId: string, mealId: string): Promise<StoredMealInfo | undefined>;
  /**
   * With a sourceVersion: `stale` when not greater than the stored one; an id no user has is
   * recorded as deleted, so that an older save arriving later is stale; another user's id
   * throws id_taken. Without one, an id the user does not have is `not_found`.
   */
  deleteMeal(
    userId: string,
    mealId: string,
    options?: { sourceVersion?: number },
  ): Promise<'deleted' | 'already_deleted' | 'not_found' | 'stale'>;
  createKey(userId: string, options?: { name?: string; expiresIn?: string }): Promise<CreatedKey>;
  listKeys(userId: string): Promise<KeyInfo[]>;
  revokeKey(userId: string, keyId: string): Promise<boolean>;
  /** `next`: a path of the page the link lands on once signed in, such as a Connect request (docs/connect.md). */
  createLoginLink(
    userId: string,
    options?: { publicUrl?: string; next?: string },
  ): Promise<{ url: string; expiresAt: string }>;
  /**
   * Erases the user, as DELETE /host/v1/users/{userId} does (docs/host-api.md#erasing-a-user):
   * what there was; zeros for a user with nothing (a retry).
   */
  eraseUser(userId: string): Promise<{ meals: number; keys: number; webhooks: number }>;
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
  /** A host API credential for a back end; `name` (trimmed, 1 to 100 characters) says which. */
  createServiceToken(options: { name: string }): Promise<CreatedServiceToken>;
  /** Every service token, oldest first, revoked ones too. */
  listServiceTokens(): Promise<ServiceTokenInfo[]>;
  /** Refused on every instance within 1 s; false when no token has that id (true again for a revoked one). */
  revokeServiceToken(id: string): Promise<boolean>;
  /**
   * Registers a third-party app, as `apps create` does: invalid_argument for a name that is not 1
   * to 100 characters, redirect URIs that are not 1 to 10 https:// or loopback http:// URLs, or
   * a homepage that is not https://.
   */
  createApp(options: { name: string; redirectUris: readonly string[]; homepageUrl?: string }): Promise<CreatedApp>;
  /** Every app, oldest first. */
  listApps(): Promise<AppInfo[]>;
  /** Deletes the app; every key people granted it is refused within 1 s. False when no app has that id. */
  deleteApp(id: string): Promise<boolean>;
  /** A new client secret, shown once: the previous one is refused at once. */
  rotateAppSecret(id: string): Promise<{ id: string; clientSecret: string } | undefined>;
  close(): Promise<void>;
}
