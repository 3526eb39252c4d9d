import type { FeedStart } from '../domain/feed-start.js';
import type { FeedPosition, Meal } from '../domain/meal.js';
import type { MealsDigest } from '../domain/meals-digest.js';
import type { CallTraits } from './guarded-concerns.js';

/** What a reader of a user's changes sees: the pages of `/v1/meals` and the CSV export. */
export interface MealFeed {
  /**
   * One page of a user's changes in feed order (modifiedAt, then id, ascending), read as one
   * snapshot: items, hasMore, the user's change clock and the pruned-tombstone watermark.
   */
  listFeed(query: FeedQuery): Promise<FeedPage>;
  /**
   * One meal of a user, live or tombstone, as a page with includeDeleted shows it, and the
   * newest sourceVersion the store holds for it; undefined when the user has no such meal
   * (another user's is as unknown as a made-up id).
   */
  getMeal(userId: string, mealId: string): Promise<StoredMeal | undefined>;
  /** A user's live meals with modifiedAt >= since, in feed order (for exports). */
  exportMeals(userId: string, since: number): AsyncIterable<Meal>;
}

export interface StoredMeal {
  /** The item's JSON text as a page with includeDeleted sends it (a Meal with `"deleted":false`, or a tombstone). */
  readonly item: string;
  readonly modifiedAt: number;
  readonly deleted: boolean;
  /** Null when no write gave one. */
  readonly sourceVersion: number | null;
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
   * The user's change clock as of the page's snapshot (undefined: the user never had a
   * change). Every change committed after that snapshot has a larger modifiedAt, so a client
   * that read a full pass follows from exactly this + 1 ms (docs/api.md#the-meals-last-modified-header).
   */
  readonly newestChangeAt: number | undefined;
  /**
   * The digest of the user's live meals in the page's snapshot, kept by every write's commit
   * step (docs/api.md#verifying-a-copy-meals-digest); undefined only while a store migrated
   * from before it has not computed it yet.
   */
  readonly liveDigest: MealsDigest | undefined;
  /**
   * With includeDeleted: the position of the newest tombstone of this user the store has
   * pruned, undefined when none ever was. Without includeDeleted: always undefined (not read).
   */
  readonly prunedThrough: FeedPosition | undefined;
}

export const MEAL_FEED_TRAITS: CallTraits<MealFeed> = { exportMeals: ['stream'] };
