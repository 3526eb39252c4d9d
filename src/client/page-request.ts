import { parseInstant } from '../domain/instant.js';
import { MEALS_DIGEST, MEALS_LAST_MODIFIED } from '../domain/meal-page.js';
import { type MealsDigest, parseMealsDigest } from '../domain/meals-digest.js';
import { MealExportResponseError } from './errors.js';
import type { RequestPolicy } from './send-request.js';
import { sendRequest } from './send-request.js';
import type { ListMealsOptions, MealPage } from './types.js';
import { MAX_WAIT_SECONDS } from '../domain/page-bounds.js';

/** A page with the moment the server answered (its Date header; the client clock without one). */
export interface FetchedPage {
  readonly page: MealPage;
  readonly answeredAt: number;
  /**
   * The user's newest change as of the page's snapshot (its Meals-Last-Modified header, epoch
   * ms): every later change has a larger modifiedAt. Undefined when the header is absent (the
   * user has had no change, or something between stripped it) or not an instant.
   */
  readonly newestChangeAt: number | undefined;
  /** The page's Meals-Digest header, parsed: sent when hasMore is false; undefined when absent or not in its form. */
  readonly digest: MealsDigest | undefined;
}

/** `https://host/prefix` and `https://host/prefix/` both lead to `https://host/prefix/v1/meals`. */
export function mealsUrl(baseUrl: string | URL): URL {
  const base = new URL(baseUrl);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return new URL('v1/meals', base);
}

/** How long the server may hold a request with this `wait` (one it refuses is answered at once). */
function holdMsOf(wait: number | undefined): number | undefined {
  if (wait === undefined) return undefined;
  return Number.isInteger(wait) && wait >= 1 && wait <= MAX_WAIT_SECONDS ? wait * 1000 : 0;
}

function instantText(value: string | Date): string {
  return typeof value === 'string' ? value : value.toISOString();
}

/** The query in the contract's parameter order; absent options are left out. */
function withQuery(endpoint: URL, options: ListMealsOptions): URL {
  const url = new URL(endpoint);
  url.searchParams.set('lastModifiedSince', instantText(options.lastModifiedSince));
  if (options.limit !== undefined) url.searchParams.set('limit', String(options.limit));
  if (options.cursor !== undefined && options.cursor !== null) url.searchParams.set('cursor', options.cursor);
  if (options.includeDeleted !== undefined) url.searchParams.set('includeDeleted', String(options.includeDeleted));
  if (options.wait !== undefined) url.searchParams.set('wait', String(options.wait));
  return url;
}

function isMealPage(body: unknown): body is MealPage {
  if (typeof body !== 'object' || body === null) return false;
  const page = body as Record<string, unknown>;
  return (
    page.ok === true &&
    typeof page.userId === 'string' &&
    typeof page.lastModifiedSince === 'string' &&
    Array.isArray(page.meals) &&
    typeof page.hasMore === 'boolean' &&
    (page.nextCursor === null || typeof page.nextCursor === 'string')
  );
}

/** GET /v1/meals once (with the request policy's waits and retries), checked to be a page. */
export async function fetchPage(policy: RequestPolicy, endpoint: URL, options: ListMealsOptions): Promise<FetchedPage> {
  const url = withQuery(endpoint, options);
  const { response, body } = await sendRequest(policy, url, { signal: options.signal, holdMs: holdMsOf(options.wait) });
  if (!isMealPage(body)) {
    throw new MealExportResponseError({ method: 'GET', url: url.href }, response, 'not a meal page');
  }
  const date = Date.parse(response.headers.date ?? '');
  const lastModified = response.headers[MEALS_LAST_MODIFIED];
  const digest = response.headers[MEALS_DIGEST];
  return {
    page: body,
    answeredAt: Number.isNaN(date) ? Date.now() : date,
    newestChangeAt: lastModified === undefined ? undefined : parseInstant(lastModified),
    digest: digest === undefined ? undefined : parseMealsDigest(digest),
  };
}
