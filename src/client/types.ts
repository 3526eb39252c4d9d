/**
 * The wire types of GET /v1/meals (docs/api.md#the-call), as a consumer receives them:
 * instants are `YYYY-MM-DDTHH:mm:ss.sssZ` strings.
 */
import type { MealNutrients, MealType } from '../domain/meal.js';
import type { MealJson } from '../domain/meal-json.js';
import type { MealsDigest } from '../domain/meals-digest.js';
import type { KeyInfo } from '../domain/key-info.js';

export type { KeyInfo, MealNutrients, MealType };

/**
 * A live meal: every field always present, in contract order (id, description, title, type,
 * date, utcOffset, the nutrients, modifiedAt); `deleted` is `false` with includeDeleted=true, absent
 * otherwise. A later /v1 may add fields (docs/api.md#compatibility): they come through as sent,
 * and nothing here reads them.
 */
export interface Meal extends MealJson {
  readonly deleted?: false;
}

/** A deleted meal, only with includeDeleted=true: these three fields (a later /v1 may add more). */
export interface Tombstone {
  readonly id: string;
  readonly modifiedAt: string;
  readonly deleted: true;
}

export type MealFeedItem = Meal | Tombstone;

/** The 200 body: these seven fields, in this order (a later /v1 may add more, which the client ignores). */
export interface MealPage {
  readonly ok: true;
  readonly userId: string;
  /** The request's instant, normalised. */
  readonly lastModifiedSince: string;
  readonly count: number;
  readonly meals: readonly MealFeedItem[];
  /** True when more items follow: ask again with the same lastModifiedSince and `cursor: nextCursor`. */
  readonly hasMore: boolean;
  /** The position after the last item; null when the page is empty (keep the cursor you sent). */
  readonly nextCursor: string | null;
}

export function isTombstone(item: MealFeedItem): item is Tombstone {
  return item.deleted === true;
}

export interface ListMealsOptions {
  /** Inclusive lower bound on modifiedAt: an ISO 8601 date-time or a Date. */
  readonly lastModifiedSince: string | Date;
  /** 1 to 5000; the server's default is 1000. */
  readonly limit?: number;
  readonly cursor?: string | null;
  readonly includeDeleted?: boolean;
  /**
   * Long poll (docs/api.md#changes-as-they-happen-wait), whole seconds 1 to 120: when the page
   * would be empty, the server holds the request until a change of this user that belongs in it
   * commits (then answers within 1 s) or this many seconds pass (then answers the empty page). One
   * request for the limits; the client's timeout allows the hold.
   */
  readonly wait?: number;
  /**
   * Aborts the waits and the request, a held one included: the call rejects with an error
   * named `AbortError`.
   */
  readonly signal?: AbortSignal;
}

/**
 * Where a sync stands: save it after applying a page, pass it back as `sync({ from })`.
 * Plain JSON, so it can be written to a file as it is.
 */
export interface SyncPosition {
  readonly lastModifiedSince: string;
  readonly cursor: string | null;
  /**
   * Set while a full pass without tombstones is under way (the first sync, or a resync after
   * `410 resync_required`): once the pass ends, changes are followed from this instant with
   * includeDeleted=true. Null when following changes.
   */
  readonly followSince: string | null;
}

/** One answer of GET /v1/meals: the page, and what its headers say of the feed. */
export interface MealPageAnswer {
  readonly page: MealPage;
  /**
   * The user's newest change as of this page's snapshot: its `Meals-Last-Modified` header, as
   * ISO 8601. Null when the user has had no change, or something between stripped the header.
   * A pass of your own that keeps its first answer's value can follow the changes from it +
   * 1 ms and miss none: what `sync()` does (the service's docs/api.md, "The
   * Meals-Last-Modified header").
   */
  readonly mealsLastModified: string | null;
  /**
   * The page's `Meals-Digest` header, parsed: the count and sum of the user's live meals in
   * its snapshot, sent when `hasMore` is false; null otherwise, or when absent. A copy that
   * applied the page compares its own (createMealsDigest) with it (the service's docs/api.md,
   * "Verifying a copy").
   */
  readonly mealsDigest: MealsDigest | null;
}

export interface SyncStep {
  /**
   * The page as the server sent it. `hasMore: false` is the end of the feed: a sync returns
   * after it, a follow holds its next poll. A follow's poll whose wait ran out with no change is
   * an empty page too, with the position unchanged.
   */
  readonly page: MealPage;
  /** Where to resume once this page is applied. */
  readonly position: SyncPosition;
  /**
   * True on the first page after the server answered `410 resync_required`: the sync started
   * again from the beginning, so drop your copy and rebuild it from this page on.
   */
  readonly resynced: boolean;
  /**
   * On the step that catches up (`hasMore: false` while following the changes with
   * tombstones): the page's `Meals-Digest`. A copy made from the beginning by this sync, once
   * it applied the page, holds exactly these meals: if its own digest (createMealsDigest)
   * differs, the copy is wrong; drop it and sync again from the beginning. Null on every other
   * step (the end of a full pass without tombstones among them: a meal deleted during the pass
   * leaves the copy only at the next step), with `includeDeleted: false`, and when the header is absent.
   */
  readonly digest: MealsDigest | null;
}

export interface SyncOptions {
  /** A position saved from an earlier step; wins over `since` and `cursor`. */
  readonly from?: SyncPosition | undefined;
  /** Where to start when there is no saved position; absent: the beginning (a full pass first). */
  readonly since?: string | Date;
  readonly cursor?: string | null;
  /** Ask for tombstones (default true): what a copy needs to apply deletions. */
  readonly includeDeleted?: boolean;
  /** Page size, 1 to 5000 (default 5000: the fewest pages under the 3 s interval). */
  readonly limit?: number;
  /** Told when a `410 resync_required` makes the sync start again from the beginning. */
  readonly onResync?: (reason: Error) => void;
  /**
   * Follow the changes instead of returning at the end of the feed: every poll at the end is
   * a long poll of `wait` seconds, so a change is yielded within about a second of its commit
   * while an idle feed costs one request per `wait`. It ends only by `signal` (or an error).
   */
  readonly follow?: boolean;
  /**
   * With `follow`: how long the server may hold each poll, whole seconds 1 to 120 (default
   * 120, the server's maximum and the fewest requests). Ignored without `follow`.
   */
  readonly wait?: number;
  /**
   * Stops the sync, at once, even during a held poll or a wait: the iteration rejects with an
   * error named `AbortError` (the pages yielded before it were whole; resume from the last
   * position saved). Breaking out of `for await` also ends it, between pages.
   */
  readonly signal?: AbortSignal;
}

/** Why the client is about to wait, and for how long. */
export interface WaitEvent {
  readonly reason: 'interval' | 'rate_limited' | 'retry';
  readonly ms: number;
  /** For `retry`: the attempt about to be made (1 for the first retry) and what failed. */
  readonly attempt?: number;
  /** For `retry`: how many retries in a row are made before the error is thrown (`maxRetries`). */
  readonly retries?: number;
  readonly error?: Error;
}
