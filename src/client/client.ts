import { createFetchTransport, type FetchFunction } from './fetch-transport.js';
import { createHttpsTransport } from './https-transport.js';
import { fetchKeyInfo, keyUrl } from './key-info-request.js';
import { createPacer, createWaiter } from './pacer.js';
import { fetchPage, mealsUrl } from './page-request.js';
import type { RequestPolicy } from './send-request.js';
import { syncPages } from './sync.js';
import type { HttpTransport } from './transport.js';
import type { KeyInfo, ListMealsOptions, MealPage, MealPageAnswer, SyncOptions, SyncStep, WaitEvent } from './types.js';
import type { BackoffOptions } from './wait-times.js';

export interface MealExportClientOptions {
  /** The service's base URL, such as `https://127.0.0.1:8443`. */
  readonly baseUrl: string | URL;
  /** `mxk_...`: sent as `Authorization: Bearer`, never in the URL. */
  readonly apiKey: string;
  /**
   * PEM certificate(s) to trust, such as the server's self-signed `<data-dir>/tls/cert.pem`
   * (a Buffer from readFileSync is a Uint8Array). Absent: the system's trust store.
   */
  readonly ca?: string | Uint8Array | undefined;
  /**
   * The wait between requests. Absent: 3000 ms (the contract's) until the server announces
   * its own in `RateLimit-Policy`, then that. Given: exactly this, whatever the server says.
   */
  readonly minIntervalMs?: number;
  /**
   * 5xx answers or network errors in a row retried before the error is thrown (default 6).
   * A network error that cannot pass later (`retryable: false`: a certificate, a wrong scheme,
   * an unknown host) is thrown at once.
   */
  readonly maxRetries?: number;
  /** Backoff of those retries: full jitter under a cap that doubles from 1 s up to 30 s. */
  readonly backoff?: BackoffOptions;
  /** A 429 asking for a longer wait (the daily quota) is thrown instead (default 1 hour). */
  readonly maxRetryAfterMs?: number;
  /**
   * The largest response body accepted, received and decompressed (default 64 MiB): past it
   * the request fails with MealExportNetworkError ERR_RESPONSE_TOO_LARGE, not retried.
   * Held by node:https and by a `fetch` given (which cannot see compressed bytes: it counts
   * Content-Length and the decompressed body); a `transport` of your own must bound itself.
   */
  readonly maxResponseBytes?: number;
  /** Send through this fetch instead of node:https (with your own dispatcher, say). Not with `ca`. */
  readonly fetch?: FetchFunction;
  /** Send through this transport instead (tests, other runtimes). Not with `ca` or `fetch`. */
  readonly transport?: HttpTransport;
  /** Told before every wait: the interval, a 429's Retry-After, every retry (with what failed and its backoff). */
  readonly onWait?: (event: WaitEvent) => void;
}

export interface MealExportClient {
  /** One page of GET /v1/meals, as the server sent it (held first when `wait` is given). */
  listMeals(options: ListMealsOptions): Promise<MealPage>;
  /** listMeals, with the page's `Meals-Last-Modified` and `Meals-Digest` headers beside it: for a sync loop of your own. */
  listMealsWithHeaders(options: ListMealsOptions): Promise<MealPageAnswer>;
  /**
   * Every page to the end of the feed, each with the position to save after applying it. With
   * `follow: true` it goes on past the end, holding each poll with `wait` (long poll), and
   * yields each change within about a second of its commit until `signal` aborts.
   */
  sync(options?: SyncOptions): AsyncGenerator<SyncStep, void, undefined>;
  /**
   * GET /v1/key: this client's key and where it stands against its limits (used and left today,
   * when the next request will be accepted). Free: it never counts against the limits, so it
   * neither waits for the interval nor delays the next listMeals.
   */
  keyInfo(options?: { readonly signal?: AbortSignal }): Promise<KeyInfo>;
  /** Closes kept-alive connections (they never keep the process alive anyway). */
  close(): void;
}

function chooseTransport(options: MealExportClientOptions): HttpTransport {
  const given = [options.ca, options.fetch, options.transport].filter((x) => x !== undefined).length;
  if (given > 1) throw new TypeError('pass at most one of ca, fetch and transport');
  if (options.transport !== undefined) return options.transport;
  const cap = options.maxResponseBytes === undefined ? {} : { maxResponseBytes: options.maxResponseBytes };
  if (options.fetch !== undefined) return createFetchTransport(options.fetch, cap);
  return createHttpsTransport({ ...(options.ca === undefined ? {} : { ca: options.ca }), ...cap });
}

/**
 * A client for one key. One client keeps one pace: share it between calls, so that the
 * interval is kept across them (docs/api.md#limits).
 */
export function createMealExportClient(options: MealExportClientOptions): MealExportClient {
  if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('apiKey is required');
  const endpoint = mealsUrl(options.baseUrl);
  const keyEndpoint = keyUrl(options.baseUrl);
  const transport = chooseTransport(options);
  const wait = createWaiter(options.onWait);
  const policy: RequestPolicy = {
    transport,
    apiKey: options.apiKey,
    wait,
    pacer: createPacer({
      wait,
      ...(options.minIntervalMs === undefined ? {} : { minIntervalMs: options.minIntervalMs }),
    }),
    maxRetries: options.maxRetries ?? 6,
    backoff: { initialMs: 1000, maxMs: 30_000, ...options.backoff },
    maxRetryAfterMs: options.maxRetryAfterMs ?? 3_600_000,
  };
  const fetchOne = (query: ListMealsOptions) => fetchPage(policy, endpoint, query);
  return {
    async listMeals(query) {
      return (await fetchOne(query)).page;
    },
    async listMealsWithHeaders(query) {
      const { page, newestChangeAt, digest } = await fetchOne(query);
      const mealsLastModified = newestChangeAt === undefined ? null : new Date(newestChangeAt).toISOString();
      return { page, mealsLastModified, mealsDigest: digest ?? null };
    },
    sync(syncOptions = {}) {
      return syncPages(fetchOne, syncOptions);
    },
    keyInfo(keyOptions = {}) {
      return fetchKeyInfo(policy, keyEndpoint, keyOptions.signal);
    },
    close() {
      transport.close();
    },
  };
}
