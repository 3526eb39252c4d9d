import { MealExportResyncLoopError, MealExportResyncRequiredError } from './errors.js';
import { MAX_LIMIT, MAX_WAIT_SECONDS } from '../domain/page-bounds.js';
import type { FetchedPage } from './page-request.js';
import type { ListMealsOptions, SyncOptions, SyncPosition, SyncStep } from './types.js';

export const EPOCH = '1970-01-01T00:00:00.000Z';
/** A sync reads the largest pages the server gives: fewest requests for the quota. */
export const DEFAULT_SYNC_LIMIT = MAX_LIMIT;

/**
 * After a full pass, changes are followed from just after the user's newest change as the pass's
 * first answer saw it (Meals-Last-Modified): modifiedAt rises in commit order, so every later change,
 * a deletion of a meal already read included, comes after it
 * (docs/api.md#why-it-is-there-following-the-changes-after-a-full-pass). Without the header (a proxy
 * stripped it, an older server), from this margin before the server's Date: a deletion during the pass,
 * or one written on an instance whose clock is a little behind, is still seen; what comes twice is the
 * same upsert or deletion, which a copy keyed by id absorbs. An empty first answer: from the pass's start.
 */
export const FOLLOW_MARGIN_MS = 5 * 60_000;

/** Where the changes after a full pass that began at `passStart` are followed from, given its first answer. */
function followStart(first: FetchedPage, passStart: string): string {
  // lastModifiedSince is inclusive: the newest change the pass saw + 1 ms is the first one it did not.
  if (first.newestChangeAt !== undefined) return new Date(first.newestChangeAt + 1).toISOString();
  // An empty feed and no header: the user had no change at that snapshot. A write under way
  // then (an import reading a slow input) commits later with modifiedAt stamped when it began,
  // possibly more than the margin before this answer: following from where the pass began
  // reads it, and nothing twice, since the pass read nothing.
  if (first.page.count === 0 && !first.page.hasMore) return passStart;
  return new Date(first.answeredAt - FOLLOW_MARGIN_MS).toISOString();
}

type FetchPage = (options: ListMealsOptions) => Promise<FetchedPage>;

/** A full pass under way: `followSince` is set from its first answer (followStart). */
interface Pass {
  followSince: string | undefined;
}

function startingPoint(options: SyncOptions, includeDeleted: boolean): { position: SyncPosition; pass: Pass | null } {
  if (options.from !== undefined) {
    const { from } = options;
    return { position: from, pass: from.followSince === null ? null : { followSince: from.followSince } };
  }
  const since = options.since instanceof Date ? options.since.toISOString() : options.since;
  const cursor = options.cursor ?? null;
  // A fresh copy needs no tombstones (and one from 1970 would be answered 410 once anything
  // was pruned): a full pass without them first, then the changes with them, as the contract
  // says to start (docs/api.md#the-meals-last-modified-header).
  const fresh = since === undefined && cursor === null && includeDeleted;
  const position = { lastModifiedSince: since ?? EPOCH, cursor, followSince: null };
  return { position, pass: fresh ? { followSince: undefined } : null };
}

/** The `wait` of a follow's polls: the server's maximum unless asked otherwise. */
function followWait(wait: number | undefined): number {
  if (wait === undefined) return MAX_WAIT_SECONDS;
  if (!Number.isInteger(wait) || wait < 1 || wait > MAX_WAIT_SECONDS) {
    throw new RangeError(`wait must be a whole number of seconds from 1 to ${MAX_WAIT_SECONDS}, got ${wait}`);
  }
  return wait;
}

/**
 * Every page from a position to the end of the feed, each with the position to save once applied.
 * On `410 resync_required`, at any point (the catch-up after a full pass included), it starts again
 * from the beginning without tombstones, flags the first page `resynced`, then follows the changes; a
 * second 410 before that resync reaches the end throws MealExportResyncLoopError rather than loop.
 * With `follow`, a sync whose requests after the full pass carry `wait`, the end is not the end: the
 * server holds each until a change commits or the wait runs out (docs/api.md#changes-as-they-happen-wait),
 * and it goes on until `signal` aborts.
 */
export async function* syncPages(fetchPage: FetchPage, options: SyncOptions = {}): AsyncGenerator<SyncStep> {
  const includeDeleted = options.includeDeleted ?? true;
  const limit = options.limit ?? DEFAULT_SYNC_LIMIT;
  const wait = options.follow === true ? followWait(options.wait) : undefined;
  let { position, pass } = startingPoint(options, includeDeleted);
  let resynced = false;
  let resyncedThisRun = false;
  for (;;) {
    let fetched: FetchedPage;
    try {
      fetched = await fetchPage({
        lastModifiedSince: position.lastModifiedSince,
        cursor: position.cursor,
        includeDeleted: includeDeleted && pass === null,
        limit,
        // A full pass is read at once; only the changes after it are waited for.
        ...(wait === undefined || pass !== null ? {} : { wait }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      if (!(error instanceof MealExportResyncRequiredError)) throw error;
      if (resyncedThisRun) throw new MealExportResyncLoopError(error);
      options.onResync?.(error);
      position = { lastModifiedSince: EPOCH, cursor: null, followSince: null };
      pass = { followSince: undefined };
      resynced = true;
      resyncedThisRun = true;
      continue;
    }
    const { page } = fetched;
    const cursor = page.nextCursor ?? position.cursor;
    if (pass !== null) {
      pass.followSince ??= followStart(fetched, position.lastModifiedSince);
      position = page.hasMore
        ? { lastModifiedSince: position.lastModifiedSince, cursor, followSince: pass.followSince }
        : { lastModifiedSince: pass.followSince, cursor: null, followSince: null };
    } else {
      position = { lastModifiedSince: page.lastModifiedSince, cursor, followSince: null };
    }
    // Only a caught-up copy that took tombstones holds exactly the header's meals (SyncStep.digest).
    const caughtUp = !page.hasMore && pass === null && includeDeleted;
    yield { page, position, resynced, digest: caughtUp ? (fetched.digest ?? null) : null };
    resynced = false;
    if (page.hasMore) continue;
    if (pass !== null) {
      // The pass is over: now the changes since it began, tombstones included.
      pass = null;
      continue;
    }
    if (wait === undefined) return;
    // Caught up: a 410 from here on (weeks later, say) is a new one, not a resync that loops.
    resyncedThisRun = false;
  }
}
