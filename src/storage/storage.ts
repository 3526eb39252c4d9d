import type { FeedStart } from '../domain/feed-start.js';
import type { FeedPosition, Meal, MealContent } from '../domain/meal.js';
import type { FeedWatch, FeedWatcher } from './feed-signals.js';
import type { WebhookStore } from './webhook-store.js';

/**
 * The storage behind every command and the HTTP layer. One adapter per backend (sqlite/,
 * postgres/); all methods are async so that a networked backend fits without touching
 * callers. test/storage/storage.suite.ts holds every adapter to the same behaviour, byte for
 * byte. What every adapter guarantees, with many instances on one store:
 *
 * - **The change clock** (CONTRACT.md section 2): for each user, modifiedAt strictly increases
 *   in commit order. One user's writes are serialised (SQLite: its single writer; PostgreSQL:
 *   the user's `user_clocks` row, created with INSERT … ON CONFLICT DO NOTHING, then locked
 *   with SELECT … FOR UPDATE), and each write takes max(now, the user's last + 1 ms) inside
 *   that lock (domain/change-clock.ts). So a change becomes visible only after every change
 *   with a smaller modifiedAt, and a reader resuming after its cursor, at READ COMMITTED or
 *   above, never skips one.
 * - **A page is one snapshot**: its items, hasMore, the user's change clock (`newestChangeAt`)
 *   and the pruned-tombstone watermark are read by one statement.
 * - **The 10-active-keys limit** holds under concurrent creations on any number of instances
 *   (no count-then-insert race: SQLite's IMMEDIATE transaction, PostgreSQL's per-user advisory
 *   lock).
 * - **The cursor secret** is created once per store, by the first migration to run, and read
 *   by every instance.
 * - **The tombstone watermark** moves in the transaction that prunes, forward only, and
 *   survives restarts.
 * - **The webhook outbox** (webhook-store.ts): every transaction that moves a user's clock
 *   queues the user's webhook events in it, so no change commits without its event.
 * - **Migrations** run at open, idempotent, safe when several processes start at once.
 * - Failures to reach the store become AppError('unavailable') with the driver error as
 *   `cause` (a 503 with Retry-After), never a hang: a networked adapter bounds each call of
 *   the request path (long writes, such as an import, are bounded by connection failures only,
 *   so that a failure is never reported for a transaction that then commits).
 */
export interface Storage extends WebhookStore {
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
   * user's change clock, in the order given. A deleted meal comes back to life. A meal equal in
   * every field to the user's live meal of that id (an earlier one of the same call included)
   * is no change: nothing is written for it, its modifiedAt stays and the clock does not move
   * (CONTRACT.md section 7). An id that belongs to another user writes nothing.
   */
  upsertMeals(userId: string, meals: readonly MealContent[], now: number): Promise<UpsertResult>;
  /**
   * upsertMeals for meals that come in batches (`meals import`, issue 17 item 7): the same
   * rules and the same code, in ONE transaction over every batch, each batch written as it
   * comes, so that memory holds one batch whatever the count. A foreign id's `index` counts
   * from the first meal of the first batch; the batch that holds it is the last one taken.
   * When `batches` throws, the transaction rolls back and the error passes on. Nothing else
   * may use this handle meanwhile: on SQLite the transaction is held across the awaits.
   */
  importMeals(userId: string, batches: AsyncIterable<readonly MealContent[]>, now: number): Promise<UpsertResult>;
  /** Turns a live meal into a tombstone (a new change). */
  deleteMeal(userId: string, mealId: string, now: number): Promise<DeleteResult>;
  /**
   * Change signals: tells the watcher which users' feeds moved, whoever committed the change
   * (storage/feed-signals.ts). Not a store call: it opens at most one listening connection or
   * poller per handle, on the first watch.
   */
  watchFeeds(watcher: FeedWatcher): FeedWatch;
  /**
   * Removes tombstones whose modifiedAt is before `before`; returns how many. In the same
   * transaction, each user's watermark (`FeedPage.prunedThrough`) moves up to the position of
   * the newest tombstone removed, never back; it survives restarts (CONTRACT.md section 2).
   */
  pruneTombstones(before: number): Promise<number>;

  /** Stores a new key unless its id is taken or the user already holds `maxActive` active keys. */
  createApiKey(key: NewApiKey, maxActive: number, now: number): Promise<CreateKeyResult>;
  listApiKeys(userId: string): Promise<ApiKeyRecord[]>;
  /** Revokes a key (idempotent: an already revoked key keeps its first revokedAt). */
  revokeApiKey(keyId: string, now: number): Promise<ApiKeyRecord | undefined>;
  /**
   * The keys stored under these digests, in the order asked (undefined where there is none),
   * revoked and expired ones included: one query for the whole batch, so that many lookups
   * waiting together cost the store one round trip (domain/key-authenticator.ts).
   */
  findApiKeysByDigests(digests: readonly Buffer[]): Promise<(ApiKeyRecord | undefined)[]>;
  /**
   * Records a batch of key uses in one transaction: each key's lastUsedAt (never moved back)
   * and its accepted requests per UTC day, ADDED to what the store holds (several instances
   * flush their own counts for the same key and day), with the latest acceptance of that day
   * (never moved back either). Unknown key ids are ignored.
   */
  recordKeyUse(uses: KeyUses): Promise<void>;
  /**
   * Every key's accepted requests per day for the days `fromDay` on (UTC day numbers), each
   * with the time of the latest of them: what the in-process limiter starts from, so that the
   * counts survive a restart (CONTRACT.md section 4; ratelimit/used-quota.ts). One indexed
   * range of days, so bounded by the keys used on those days. In no particular order.
   */
  listKeyRequestsSince(fromDay: number): Promise<KeyDayUse[]>;
  /**
   * Accepted requests per day of every key the user holds (revoked and expired keys
   * included), for the days `fromDay` to `toDay` inclusive (UTC day numbers, see KeyDayRequests),
   * ordered by key id then day. Days without requests are absent.
   */
  listKeyRequests(userId: string, fromDay: number, toDay: number): Promise<KeyDayRequests[]>;
  /** Removes the daily request counts of days before `beforeDay`; returns how many rows. */
  pruneKeyRequests(beforeDay: number): Promise<number>;

  /**
   * The app page's sign-in (issue 11). Only SHA-256 digests of login tokens and session ids
   * are stored, never the raw values, so a copy of the store lets no one sign in.
   */
  createLoginToken(token: NewLoginToken): Promise<void>;
  /**
   * Uses up a login token: atomic single use. Of any number of calls with the same digest, on
   * any number of instances at once, at most one returns the user id; the token is gone after
   * it, whatever the answer. Undefined when the digest is unknown, already used, or expired
   * (`expiresAt <= now`).
   */
  consumeLoginToken(digest: Buffer, now: number): Promise<string | undefined>;
  createSession(session: NewSession): Promise<void>;
  /** The session, while `expiresAt > now`; undefined once expired, deleted or unknown. */
  findSession(digest: Buffer, now: number): Promise<SessionRecord | undefined>;
  /** Ends a session (sign-out); idempotent. */
  deleteSession(digest: Buffer): Promise<void>;
  /** Removes login tokens and sessions expired at `now`; returns how many. */
  pruneExpiredSignIns(now: number): Promise<number>;

  /** The secret that signs cursors; created once, shared by every instance on this store. */
  cursorSecret(): Promise<Buffer>;
  /**
   * The app page's origin (`https://127.0.0.1:8444`, or `--public-url`), recorded by `serve
   * --app-port` at start so that `users login-link` points at the running page (issue 17).
   * The last recording wins; undefined until a page has started on this store.
   */
  recordAppPageOrigin(origin: string): Promise<void>;
  appPageOrigin(): Promise<string | undefined>;
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
  /**
   * The store of a serving process (`serve`, a worker, the cluster's primary). Its background
   * writes, the ones that can be done later (recordKeyUse, pruneTombstones, pruneKeyRequests,
   * pruneExpiredSignIns, and the webhook sender's claimDueWebhookEvents and
   * recordWebhookAttempt), never wait for another connection's write lock: they fail at once
   * with `unavailable` and their caller tries again at its next turn. SQLite's busy wait
   * blocks the process's event loop, so waiting there would hold every request, /healthz
   * included, behind an import (issue 10, item 8). Reads never wait in WAL mode.
   */
  readonly serving?: boolean;
  /**
   * What opening may create (issue 17, item 2). `file` (the default): a SQLite file in a
   * folder that exists, never the folder. `never`: the store must exist already, for the
   * commands that only read or change what is there: a missing SQLite file, or a PostgreSQL
   * database without meal-export's tables, is refused with nothing created. (A PostgreSQL
   * database itself is never created by meal-export.)
   */
  readonly create?: 'never' | 'file';
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
   * The user's change clock as of the page's snapshot: the modifiedAt of the user's newest
   * change of any kind (create, change, delete), whether or not it is on this page; undefined
   * when the user has never had one. Read by the same statement as the items, so every change
   * committed after that snapshot has a larger modifiedAt (CONTRACT.md section 2): a client
   * that read a full pass follows the changes from exactly this + 1 ms, as its first page
   * gave it, and misses none.
   */
  readonly newestChangeAt: number | undefined;
  /**
   * With includeDeleted: the position of the newest tombstone of this user the store has
   * pruned, undefined when none ever was. Without includeDeleted: always undefined (not read).
   */
  readonly prunedThrough: FeedPosition | undefined;
}

export type UpsertResult =
  | { readonly ok: true; readonly created: number; readonly updated: number; readonly unchanged: number }
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

/** `duplicate_id`: a key with that id exists already (a creation sent twice); nothing was changed. */
export type CreateKeyResult =
  | { readonly ok: true; readonly key: ApiKeyRecord }
  | { readonly ok: false; readonly reason: 'too_many_keys' | 'duplicate_id' };

/**
 * Accepted requests of one key on one UTC day: a request is accepted once its key
 * authenticates and it is not refused with 429 (CONTRACT.md section 4), so the count of today
 * is the key's use of the daily quota.
 */
export interface KeyDayRequests {
  readonly keyId: string;
  /** UTC day number: whole days since 1970-01-01 (Math.floor(epochMs / 86 400 000)). */
  readonly day: number;
  readonly requests: number;
}

/** A flush's accepted requests of one key on one UTC day, and when the latest of them was accepted. */
export interface AcceptedRequests extends KeyDayRequests {
  /**
   * Epoch ms of the latest of these requests: the store keeps the latest of every flush's,
   * where the interval of CONTRACT.md section 4 resumes after a restart. Absent only where
   * nothing limits on it (a test's counts); the authenticator always sets it.
   */
  readonly lastAcceptedAt?: number;
}

/**
 * A key's accepted requests on one UTC day, and when the latest of them was accepted (null
 * for the days counted before the store kept it: migration 4 on SQLite, 3 on PostgreSQL).
 */
export interface KeyDayUse extends KeyDayRequests {
  readonly lastAcceptedAt: number | null;
}

/** What the key authenticator flushes every few seconds (domain/key-authenticator.ts). */
export interface KeyUses {
  /**
   * Key id -> epoch ms of its latest authenticated request, a 429 included: `keys list`'s
   * lastUsedAt, so not where the interval between accepted requests can resume from.
   */
  readonly lastUsed: ReadonlyMap<string, number>;
  /** Accepted requests since the last flush, to add per key and day. */
  readonly requests: readonly AcceptedRequests[];
}

/** A one-time login link's token, as stored: its digest only. */
export interface NewLoginToken {
  /** SHA-256 of the token in the link. */
  readonly digest: Buffer;
  readonly userId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** A signed-in browser session of the app page, as stored: its digest only. */
export interface NewSession {
  /** SHA-256 of the session id in the cookie. */
  readonly digest: Buffer;
  readonly userId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface SessionRecord {
  readonly userId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}
