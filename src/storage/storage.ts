import type { FeedStart } from '../domain/feed-start.js';
import type { FeedPosition, Meal, MealContent } from '../domain/meal.js';

/**
 * The storage behind every command and the HTTP layer. One adapter per backend (sqlite.ts,
 * postgres.ts); all methods are async so that a networked backend fits without touching
 * callers. Adapters wrap driver failures as AppError('unavailable') with the driver error as
 * `cause` when the store cannot be reached.
 */
export interface Storage {
  readonly kind: 'sqlite' | 'postgres';

  /**
   * One page of a user's changes in feed order (modifiedAt, then id, ascending), read as one
   * snapshot: with includeDeleted, `prunedThrough` comes from the same snapshot as the items,
   * so no reader sees a pruned store beside an older watermark.
   */
  listFeed(query: FeedQuery): Promise<FeedPage>;
  /** A user's live meals with modifiedAt >= since, in feed order (for exports). */
  exportMeals(userId: string, since: number): AsyncIterable<Meal>;
  /**
   * Creates or updates meals of one user in one transaction, each with the next value of the
   * user's change clock, in the order given. A deleted meal comes back to life. An id that
   * belongs to another user writes nothing.
   */
  upsertMeals(userId: string, meals: readonly MealContent[], now: number): Promise<UpsertResult>;
  /** Turns a live meal into a tombstone (a new change). */
  deleteMeal(userId: string, mealId: string, now: number): Promise<DeleteResult>;
  /**
   * Removes tombstones whose modifiedAt is before `before`; returns how many. In the same
   * transaction, each user's watermark (`FeedPage.prunedThrough`) moves up to the position of
   * the newest tombstone removed, never back; it survives restarts (CONTRACT.md section 2).
   */
  pruneTombstones(before: number): Promise<number>;

  /** Stores a new key unless the user already holds `maxActive` active keys. */
  createApiKey(key: NewApiKey, maxActive: number, now: number): Promise<CreateKeyResult>;
  listApiKeys(userId: string): Promise<ApiKeyRecord[]>;
  /** Revokes a key (idempotent: an already revoked key keeps its first revokedAt). */
  revokeApiKey(keyId: string, now: number): Promise<ApiKeyRecord | undefined>;
  findApiKeyByDigest(digest: Buffer): Promise<ApiKeyRecord | undefined>;
  /** Records when keys were last used: key id -> epoch ms. */
  recordKeyUse(lastUsed: ReadonlyMap<string, number>): Promise<void>;

  /** The secret that signs cursors; created once, shared by every instance on this store. */
  cursorSecret(): Promise<Buffer>;
  /** Resolves when the store answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StorageOptions {
  /**
   * Bulk loading (`seed`): writes are not synced to disk at commit. An OS crash may lose the
   * last batches, never corrupt the store; only for data that can be generated again.
   */
  readonly bulkLoad?: boolean;
}

export interface FeedQuery {
  readonly userId: string;
  /** Where the page starts: the later of lastModifiedSince and the cursor (domain/feed-start.ts). */
  readonly start: FeedStart;
  readonly includeDeleted: boolean;
  readonly limit: number;
}

export interface FeedPage {
  /**
   * The items' JSON texts joined by commas, as UTF-8 bytes ready to send between `[` and `]`:
   * Meals; with includeDeleted, Meals followed by `"deleted": false` and tombstones.
   */
  readonly items: Buffer;
  readonly count: number;
  /** The position of the last item; undefined when the page is empty. */
  readonly last: FeedPosition | undefined;
  /** True when more items match after this page. */
  readonly hasMore: boolean;
  /**
   * With includeDeleted: the position of the newest tombstone of this user the store has
   * pruned, undefined when none ever was. Without includeDeleted: always undefined (not read).
   */
  readonly prunedThrough: FeedPosition | undefined;
}

export type UpsertResult =
  | { readonly ok: true; readonly created: number; readonly updated: number }
  /** `index`: the position in the input of the meal whose id belongs to another user. */
  | { readonly ok: false; readonly reason: 'foreign_id'; readonly index: number };

export type DeleteResult = 'deleted' | 'already_deleted' | 'not_found';

export interface ApiKeyRecord {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  /** The first characters of the key, safe to show (`mxk_` and 8 more). */
  readonly prefix: string;
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

export interface NewApiKey {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly prefix: string;
  /** SHA-256 of the key: the plain key is never stored. */
  readonly digest: Buffer;
  readonly createdAt: number;
  readonly expiresAt: number | null;
}

export type CreateKeyResult =
  { readonly ok: true; readonly key: ApiKeyRecord } | { readonly ok: false; readonly reason: 'too_many_keys' };
