import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { CursorCodec } from '../domain/cursor.js';
import { type FeedStart, feedStart, prunedTombstoneBelongs } from '../domain/feed-start.js';
import type { KeyAuthenticator } from '../keys/key-authenticator.js';
import { formatInstant } from '../domain/instant.js';
import { MEALS_LAST_MODIFIED, renderMealPage } from '../domain/meal-page.js';
import { type MealsQuery, parseMealsQuery } from './meals-query.js';
import { AppError } from '../errors.js';
import type { AuthFailureLimiter, RateLimiter, RateLimitPolicy } from '../ratelimit/rate-limiter.js';
import type { ChangeSignals } from '../storage/change-signals.js';
import type { MealFeed } from '../storage/meal-feed.js';
import { createKnownBlocks } from '../ratelimit/known-blocks.js';
import { type AuthFailureGuard, authenticateRequest } from './authenticate.js';
import { clientAddressOf, type TrustedProxies } from './client-address.js';
import { COMPRESSION_THRESHOLD, compressBody, negotiateEncoding } from './compression.js';
import { errorAnswer } from './error-answer.js';
import { failureOf } from './error-handler.js';
import { commonHeaders, JSON_CONTENT_TYPE } from './json-response.js';
import { createHeldRequests, type HeldRequest, type HeldRequests } from './held-requests.js';
import type { LargePageGate } from './large-page-gate.js';
import { addRateLimitHeaders, rateLimitPolicyHeader, retryAfterSeconds } from './rate-limit-headers.js';
import type { RequestReport } from './request-report.js';

export interface MealsEndpointDeps {
  /** The endpoint's one storage operation, and the change signals that wake long polls. */
  readonly feed: MealFeed;
  readonly signals: ChangeSignals;
  /** `--max-waiting`: long polls this process holds at most (CONTRACT.md section 2). */
  readonly maxWaiting: number;
  readonly authenticator: KeyAuthenticator;
  readonly limiter: RateLimiter;
  readonly authFailures: AuthFailureLimiter;
  /** Proxies whose X-Forwarded-For names the client, for the brute-force guard (undefined: none). */
  readonly trustedProxies: TrustedProxies | undefined;
  readonly policy: RateLimitPolicy;
  readonly cursors: CursorCodec;
  /** Makes pages of thousands of meals take turns, to bound the memory they hold. */
  readonly largePages: LargePageGate;
  /** True when the listener speaks TLS (HSTS is sent then). */
  readonly tls: boolean;
  readonly log: FastifyBaseLogger;
  /** Logs and counts each request, as for Fastify's routes (undefined: neither is wanted). */
  readonly report: RequestReport | undefined;
}

export type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

export interface MealsEndpoint {
  readonly listener: RequestListener;
  /** The long polls this endpoint holds (server.ts answers them all on SIGTERM). */
  readonly held: HeldRequests<HeldMealsRequest>;
}

/** Response headers as Node's writeHead takes them flat: name, value, name, value… (no object per request). */
type Headers = string[];

/** A long poll of /v1/meals: all it keeps while it waits (http/held-requests.ts). */
interface HeldMealsRequest extends HeldRequest {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  /** The headers of its acceptance: the rate-limit headers are those of that moment. */
  readonly headers: Headers;
  readonly query: MealsQuery;
  readonly start: FeedStart;
  /** performance.now() when it came, for the request's log line and metrics. */
  readonly started: number;
  /** performance.now() when it was held: the time it waited is not the server's latency. */
  readonly heldAt: number;
}

/** A page ready to send. */
interface PageAnswer {
  readonly count: number;
  readonly body: readonly Buffer[];
  /** The user's change clock as of the page's snapshot: the Meals-Last-Modified header. */
  readonly newestChangeAt: number | undefined;
}

/** What `answer` leaves to the held requests: the request is held, its answer comes later. */
const HELD = Symbol('held');

/** The release of a page small enough to take no share of the large-page gate. */
const NO_SHARE = (): void => undefined;

/**
 * GET and HEAD /v1/meals, served straight from Node's request and response (HEAD answers and
 * counts the same, without a body). Only requests the gatekeeper lets through come here
 * (app.ts routes them); this does the rest in the contract's order (CONTRACT.md section 5):
 * authentication, rate limit, parameters, then the page. It is the hot path, so it has no
 * framework between the socket and the store: no routing, hooks or reply objects per request,
 * and the page's meals go to the socket as SQLite returned them, never copied into one body.
 */
export function createMealsEndpoint(deps: MealsEndpointDeps): MealsEndpoint {
  const policyHeader = rateLimitPolicyHeader(deps.policy);
  const fixedHeaders = Object.entries(commonHeaders(deps.tls)).flat();
  const guard: AuthFailureGuard = { limiter: deps.authFailures, known: createKnownBlocks() };
  const { report } = deps;

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
  async function readPage(userId: string, query: MealsQuery, start: FeedStart): Promise<PageAnswer> {
    const page = await deps.feed.listFeed({
      userId,
      start,
      includeDeleted: query.includeDeleted,
      limit: query.limit,
    });
    // The watermark comes from the page's own snapshot (CONTRACT.md section 2).
    if (query.includeDeleted && prunedTombstoneBelongs(start, page.prunedThrough)) {
      throw new AppError(
        'resync_required',
        'Deleted meals from that far back have been pruned: sync again from the beginning without includeDeleted, then follow the changes.',
      );
    }
    const nextCursor = page.last === undefined ? null : deps.cursors.encode(userId, page.last);
    const body = renderMealPage(userId, query.lastModifiedSince, page.items, page.count, page.hasMore, nextCursor);
    return { count: page.count, body, newestChangeAt: page.newestChangeAt };
  }

  /**
   * Reads the page under the large-page gate: its share is kept until the answer is sent,
   * or given back at once when the page is empty (a held request holds no page while it
   * waits). Undefined when the client left while the page waited for its turn.
   */
  async function readAdmitted(
    response: ServerResponse,
    userId: string,
    query: MealsQuery,
    start: FeedStart,
  ): Promise<PageAnswer | undefined> {
    const release = await admitPage(response, query.limit);
    if (release === undefined) return undefined;
    let count = 0;
    try {
      const page = await readPage(userId, query, start);
      count = page.count;
      return page;
    } finally {
      // A small page took no share: nothing to give back, and no listener on the hot path.
      if (release !== NO_SHARE) {
        if (count === 0) release();
        else response.once('close', release);
      }
    }
  }

  async function answer(
    request: IncomingMessage,
    response: ServerResponse,
    headers: Headers,
    started: number,
  ): Promise<PageAnswer | typeof HELD | undefined> {
    const now = Date.now();
    const key = await authenticateRequest(
      request.headers.authorization,
      () =>
        clientAddressOf(request.socket.remoteAddress ?? '', request.headers['x-forwarded-for'], deps.trustedProxies),
      deps.authenticator,
      guard,
      now,
    );
    const decision = await deps.limiter.consume(key.id, now);
    deps.authenticator.noteUse(key.id, now, decision.allowed);
    addRateLimitHeaders(headers, policyHeader, deps.policy, decision, now);
    if (!decision.allowed) {
      throw new AppError('rate_limited', 'Rate limit exceeded: wait for Retry-After seconds.', {
        headers: { 'retry-after': retryAfterSeconds(decision.retryAfterMs) },
      });
    }
    // Accepted: a long poll this key still holds is answered now (one held request per key).
    held.supersede(key.id);

    const url = request.url ?? '';
    const queryStart = url.indexOf('?');
    const query = parseMealsQuery(queryStart < 0 ? '' : url.slice(queryStart + 1), (cursor) =>
      deps.cursors.decode(key.userId, cursor),
    );
    const start = feedStart(query.lastModifiedSince, query.cursor);
    const epoch = held.epoch();
    const page = await readAdmitted(response, key.userId, query, start);
    if (page === undefined) return undefined;
    if (page.count > 0 || query.waitSeconds === undefined) return page;

    const waiting: HeldMealsRequest = {
      keyId: key.id,
      userId: key.userId,
      deadline: now + query.waitSeconds * 1000,
      done: false,
      reading: false,
      again: 0,
      request,
      response,
      headers,
      query,
      start,
      started,
      heldAt: report === undefined ? 0 : performance.now(),
    };
    if (held.hold(waiting, epoch)) {
      heldByResponse.set(response, waiting);
      response.on('close', forgetHeld);
      return HELD;
    }
    // Past --max-waiting, or shutting down: answered at once, as without wait.
    return page;
  }

  /** Writes an answer (or the error it became) and reports it. */
  async function send(
    request: IncomingMessage,
    response: ServerResponse,
    headers: Headers,
    started: number,
    compute: () => Promise<PageAnswer | typeof HELD | undefined>,
  ): Promise<void> {
    let status = 200;
    let body: readonly Buffer[];
    try {
      const page = await compute();
      if (page === undefined || page === HELD) return;
      // Pushed only here, once per answer: a held request's headers are those of its acceptance,
      // and its clock is that of the page it is finally answered with.
      if (page.newestChangeAt !== undefined) headers.push(MEALS_LAST_MODIFIED, formatInstant(page.newestChangeAt));
      headers.push('content-type', JSON_CONTENT_TYPE);
      body = page.body;
    } catch (error) {
      // The one renderer of errors (http/error-answer.ts), after the rate-limit headers.
      const failure = errorAnswer(failureOf(error, deps.log));
      status = failure.status;
      for (const [name, value] of Object.entries(failure.headers)) headers.push(name, value);
      body = [Buffer.from(failure.body)];
    }
    try {
      await writeBody(request, response, status, headers, body);
    } catch (error) {
      // Only writing can fail here (compression, a socket gone): nothing more can be sent.
      deps.log.error({ err: error }, 'could not send the response');
      response.destroy();
      return;
    }
    if (report === undefined) return;
    // No status when the client left before its answer was written.
    const answered = response.headersSent ? response.statusCode : null;
    report(deps.log, request.method, request.url ?? '', answered, performance.now() - started);
  }

  /** A held request woken (a change, its deadline, a newer request of its key, shutdown). */
  async function readAgain(waiting: HeldMealsRequest, final: boolean): Promise<boolean> {
    if (waiting.response.closed) return true;
    let answered = true;
    // Logged and counted with the time the server worked on it, without the time it was held.
    const started = report === undefined ? 0 : waiting.started + (performance.now() - waiting.heldAt);
    await send(waiting.request, waiting.response, waiting.headers, started, async () => {
      const page = await readAdmitted(waiting.response, waiting.userId, waiting.query, waiting.start);
      if (page === undefined) return undefined;
      if (page.count > 0 || final) return page;
      answered = false;
      return HELD;
    });
    return answered;
  }

  const held = createHeldRequests<HeldMealsRequest>({ capacity: deps.maxWaiting, signals: deps.signals, readAgain });
  const heldByResponse = new WeakMap<ServerResponse, HeldMealsRequest>();
  // One listener function for every held response (no closure per request): its client left.
  function forgetHeld(this: ServerResponse): void {
    const waiting = heldByResponse.get(this);
    if (waiting !== undefined) held.drop(waiting);
  }

  function mealsEndpoint(request: IncomingMessage, response: ServerResponse): void {
    const started = report === undefined ? 0 : performance.now();
    const headers: Headers = fixedHeaders.slice();
    void send(request, response, headers, started, () => answer(request, response, headers, started));
  }
  return { listener: mealsEndpoint, held };
}

/**
 * Sends a JSON body given as parts: compressed as one when Accept-Encoding asks and it is
 * large enough, otherwise the parts in one corked write (one TLS write).
 * A HEAD gets the headers GET would get and no body.
 */
async function writeBody(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  headers: Headers,
  parts: readonly Buffer[],
): Promise<void> {
  let length = 0;
  for (const part of parts) length += part.length;
  const encoding = length >= COMPRESSION_THRESHOLD ? negotiateEncoding(request.headers['accept-encoding']) : undefined;
  if (encoding === undefined) {
    headers.push('content-length', String(length));
    response.writeHead(status, headers);
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    response.cork();
    for (const part of parts) response.write(part);
    response.end();
    return;
  }
  headers.push('content-encoding', encoding, 'vary', 'accept-encoding');
  if (request.method === 'HEAD') {
    // The compressed length is not worked out for a HEAD: it is optional there (RFC 9110 section 8.6).
    response.writeHead(status, headers);
    response.end();
    return;
  }
  const compressed = await compressBody(Buffer.concat(parts, length), encoding);
  headers.push('content-length', String(compressed.length));
  response.writeHead(status, headers);
  response.end(compressed);
}
