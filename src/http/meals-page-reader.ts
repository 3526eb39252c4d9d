import type { ServerResponse } from 'node:http';
import type { CursorCodec } from '../domain/cursor.js';
import { type FeedStart, prunedTombstoneBelongs } from '../domain/feed-start.js';
import { renderMealPage } from '../domain/meal-page.js';
import { formatMealsDigest } from '../domain/meals-digest.js';
import { AppError } from '../errors.js';
import type { MealFeed } from '../storage/meal-feed.js';
import type { LargePageGate } from './large-page-gate.js';

export interface MealsPageReaderDeps {
  /** The one storage operation of /v1/meals. */
  readonly feed: MealFeed;
  readonly cursors: CursorCodec;
  /** Makes pages of thousands of meals take turns, to bound the memory they hold. */
  readonly largePages: LargePageGate;
}

/** The request's parameters a page depends on (of its MealsQuery). */
export interface PageParameters {
  readonly lastModifiedSince: number;
  readonly limit: number;
  readonly includeDeleted: boolean;
}

/** A page ready to send. */
export interface PageAnswer {
  readonly count: number;
  readonly body: readonly Buffer[];
  /** The user's change clock as of the page's snapshot: the Meals-Last-Modified header. */
  readonly newestChangeAt: number | undefined;
  /** The Meals-Digest header's value: on a page with hasMore false only. */
  readonly digest: string | undefined;
}

/**
 * Reads the page under the large-page gate: its share is kept until the answer is sent,
 * or given back at once when the page is empty (a held request holds no page while it
 * waits). Undefined when the client left while the page waited for its turn.
 */
export type ReadMealsPage = (
  response: ServerResponse,
  userId: string,
  query: PageParameters,
  start: FeedStart,
) => Promise<PageAnswer | undefined>;

/** The release of a page small enough to take no share of the large-page gate. */
const NO_SHARE = (): void => undefined;

export function createMealsPageReader(deps: MealsPageReaderDeps): ReadMealsPage {
  /**
   * Waits for its turn when the page is large: its release, NO_SHARE for a small page (which
   * takes none), or undefined when the client left meanwhile.
   */
  async function admitPage(response: ServerResponse, limit: number): Promise<(() => void) | undefined> {
    const admission = deps.largePages.admit(limit);
    if (admission === undefined) return NO_SHARE;
    const release = await admission;
    // A client that left while its page waited gets no query (the store may be closing).
    if (response.closed) {
      release();
      return undefined;
    }
    return release;
  }

  /** The page from `start`, rendered, with how many items it holds and the user's clock. */
  async function readPage(userId: string, query: PageParameters, start: FeedStart): Promise<PageAnswer> {
    const page = await deps.feed.listFeed({
      userId,
      start,
      includeDeleted: query.includeDeleted,
      limit: query.limit,
    });
    // The watermark comes from the page's own snapshot (docs/api.md#staying-in-sync).
    if (query.includeDeleted && prunedTombstoneBelongs(start, page.prunedThrough)) {
      throw new AppError(
        'resync_required',
        'Deleted meals from that far back have been pruned: sync again from the beginning without includeDeleted, then follow the changes.',
      );
    }
    const nextCursor = page.last === undefined ? null : deps.cursors.encode(userId, page.last);
    const body = renderMealPage(userId, query.lastModifiedSince, page.items, page.count, page.hasMore, nextCursor);
    const digest = page.hasMore || page.liveDigest === undefined ? undefined : formatMealsDigest(page.liveDigest);
    return { count: page.count, body, newestChangeAt: page.newestChangeAt, digest };
  }

  return async function readAdmitted(response, userId, query, start) {
    const release = await admitPage(response, query.limit);
    if (release === undefined) return undefined;
    let count = 0;
    try {
      const page = await readPage(userId, query, start);
      count = page.count;
      return page;
    } finally {
      // A small page took no share: nothing to give back, and no listener on the hot path. A
      // client that left while the page was read has closed already: 'close' will not come again.
      if (release !== NO_SHARE) {
        if (count === 0 || response.closed) release();
        else response.once('close', release);
      }
    }
  };
}
