import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { CursorCodec } from '../domain/cursor.js';
import { type FeedStart, feedStart } from '../domain/feed-start.js';
import type { KeyAuthenticator } from '../keys/key-authenticator.js';
import { AppError } from '../errors.js';
import type { RateLimiter, RateLimitPolicy } from '../ratelimit/rate-limiter.js';
import type { ChangeSignals } from '../storage/change-signals.js';
import type { KeyStore } from '../storage/key-store.js';
import type { MealFeed } from '../storage/meal-feed.js';
import { type AuthFailureGuard, authenticateIncoming, invalidApiKey } from './authenticate.js';
import type { TrustedProxies } from '../listener/client-address.js';
import { commonHeaders } from '../listener/json-response.js';
import { createHeldRequests, type HeldRequest, type HeldRequests } from './held-requests.js';
import type { LargePageGate } from './large-page-gate.js';
import { createMealsAnswerWriter, type FlatHeaders, HELD, type MealsAnswer } from './meals-answer-writer.js';
import { createMealsPageReader } from './meals-page-reader.js';
import { type MealsQuery, parseMealsQuery } from './meals-query.js';
import { addRateLimitHeaders, rateLimitPolicyHeader, retryAfterSeconds } from './rate-limit-headers.js';
import type { RequestReport } from '../listener/request-report.js';

export interface MealsEndpointDeps {
  /** The endpoint's one storage operation, and the change signals that wake long polls. */
  readonly feed: MealFeed;
  readonly signals: ChangeSignals;
  /** `--max-waiting`: long polls this process holds at most (docs/api.md#changes-as-they-happen-wait). */
  readonly maxWaiting: number;
  readonly authenticator: KeyAuthenticator;
  /** Asks again, every two seconds, whether the keys of the held long polls are still accepted. */
  readonly keys: Pick<KeyStore, 'acceptedKeyIds'>;
  readonly limiter: RateLimiter;
  /** The brute-force guard, one for every authenticated route, so a block learnt on one holds on all. */
  readonly authGuard: AuthFailureGuard;
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
  /** The long polls this endpoint holds (app.ts answers them all when the server closes). */
  readonly held: HeldRequests<HeldMealsRequest>;
}

/** A long poll of /v1/meals: all it keeps while it waits (http/held-requests.ts). */
interface HeldMealsRequest extends HeldRequest {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  /** The headers of its acceptance: the rate-limit headers are those of that moment. */
  readonly headers: FlatHeaders;
  readonly query: MealsQuery;
  readonly start: FeedStart;
  /** performance.now() when it came, for the request's log line and metrics. */
  readonly started: number;
  /** performance.now() when it was held: the time it waited is not the server's latency. */
  readonly heldAt: number;
}

/**
 * GET and HEAD /v1/meals, served straight from Node's request and response (HEAD answers and
 * counts the same, without a body). Only requests the gatekeeper lets through come here
 * (app.ts routes them); this does the rest in the documented order (docs/errors.md#errors):
 * authentication, rate limit, parameters, then the page (http/meals-page-reader.ts), sent by
 * http/meals-answer-writer.ts. It is the hot path, so it has no framework between the socket
 * and the store: no routing, hooks or reply objects per request, and the page's meals go to
 * the socket as SQLite returned them, never copied into one body.
 */
export function createMealsEndpoint(deps: MealsEndpointDeps): MealsEndpoint {
  const policyHeader = rateLimitPolicyHeader(deps.policy);
  const fixedHeaders = Object.entries(commonHeaders(deps.tls)).flat();
  const { report } = deps;
  const readAdmitted = createMealsPageReader(deps);
  const send = createMealsAnswerWriter(deps.log, report);

  async function answer(
    request: IncomingMessage,
    response: ServerResponse,
    headers: FlatHeaders,
    started: number,
  ): Promise<MealsAnswer> {
    const now = Date.now();
    const key = await authenticateIncoming(request, deps, deps.authGuard, now);
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

  /** The held requests' keys still accepted, in one query; a store that does not answer refuses none. */
  async function acceptedKeys(keyIds: readonly string[]): Promise<ReadonlySet<string> | undefined> {
    try {
      return await deps.keys.acceptedKeyIds(keyIds, Date.now());
    } catch {
      return undefined;
    }
  }

  /** A held request whose key was refused meanwhile gets the 401 a new request of it gets. */
  async function refuse(waiting: HeldMealsRequest): Promise<void> {
    if (waiting.response.closed) return;
    const started = report === undefined ? 0 : waiting.started + (performance.now() - waiting.heldAt);
    await send(waiting.request, waiting.response, fixedHeaders.slice(), started, () => Promise.reject(invalidApiKey()));
  }

  const held = createHeldRequests<HeldMealsRequest>({
    capacity: deps.maxWaiting,
    signals: deps.signals,
    readAgain,
    acceptedKeys,
    refuse,
  });
  const heldByResponse = new WeakMap<ServerResponse, HeldMealsRequest>();
  // One listener function for every held response (no closure per request): its client left.
  function forgetHeld(this: ServerResponse): void {
    const waiting = heldByResponse.get(this);
    if (waiting !== undefined) held.drop(waiting);
  }

  function mealsEndpoint(request: IncomingMessage, response: ServerResponse): void {
    const started = report === undefined ? 0 : performance.now();
    const headers: FlatHeaders = fixedHeaders.slice();
    void send(request, response, headers, started, () => answer(request, response, headers, started));
  }
  return { listener: mealsEndpoint, held };
}
