import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { CursorCodec } from '../domain/cursor.js';
import { feedStart, prunedTombstoneBelongs } from '../domain/feed-start.js';
import type { KeyAuthenticator } from '../domain/key-authenticator.js';
import { renderMealPage } from '../domain/meal-page.js';
import { parseMealsQuery } from '../domain/meals-query.js';
import { AppError } from '../errors.js';
import type { AuthFailureLimiter, RateLimiter, RateLimitPolicy } from '../ratelimit/rate-limiter.js';
import type { Storage } from '../storage/storage.js';
import { createKnownBlocks } from '../ratelimit/known-blocks.js';
import { type AuthFailureGuard, authenticateRequest } from './authenticate.js';
import { clientAddressOf, type TrustedProxies } from './client-address.js';
import { COMPRESSION_THRESHOLD, compressBody, negotiateEncoding } from './compression.js';
import { errorAnswer } from './error-answer.js';
import { failureOf } from './error-handler.js';
import { commonHeaders, JSON_CONTENT_TYPE } from './json-response.js';
import type { LargePageGate } from './large-page-gate.js';
import { addRateLimitHeaders, rateLimitPolicyHeader, retryAfterSeconds } from './rate-limit-headers.js';
import type { RequestReport } from './request-report.js';

export interface MealsEndpointDeps {
  /** The endpoint's one storage operation. */
  readonly storage: Pick<Storage, 'listFeed'>;
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

/** Response headers as Node's writeHead takes them flat: name, value, name, value… (no object per request). */
type Headers = string[];

/**
 * GET and HEAD /v1/meals, served straight from Node's request and response (HEAD answers and
 * counts the same, without a body). Only requests the gatekeeper lets through come here
 * (app.ts routes them); this does the rest in the contract's order (CONTRACT.md section 5):
 * authentication, rate limit, parameters, then the page. It is the hot path, so it has no
 * framework between the socket and the store: no routing, hooks or reply objects per request,
 * and the page's meals go to the socket as SQLite returned them, never copied into one body.
 */
export function createMealsEndpoint(deps: MealsEndpointDeps): RequestListener {
  const policyHeader = rateLimitPolicyHeader(deps.policy);
  const fixedHeaders = Object.entries(commonHeaders(deps.tls)).flat();
  const guard: AuthFailureGuard = { limiter: deps.authFailures, known: createKnownBlocks() };

  async function answer(
    request: IncomingMessage,
    response: ServerResponse,
    headers: Headers,
  ): Promise<readonly Buffer[] | undefined> {
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

    const url = request.url ?? '';
    const queryStart = url.indexOf('?');
    const query = parseMealsQuery(queryStart < 0 ? '' : url.slice(queryStart + 1), (cursor) =>
      deps.cursors.decode(key.userId, cursor),
    );
    const admission = deps.largePages.admit(query.limit);
    if (admission !== undefined) {
      const release = await admission;
      // A client that left while its page waited gets no query (the store may be closing).
      if (response.closed) {
        release();
        return undefined;
      }
      response.once('close', release);
    }

    const start = feedStart(query.lastModifiedSince, query.cursor);
    const page = await deps.storage.listFeed({
      userId: key.userId,
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
    const nextCursor = page.last === undefined ? null : deps.cursors.encode(key.userId, page.last);
    return renderMealPage(key.userId, query.lastModifiedSince, page.items, page.count, page.hasMore, nextCursor);
  }

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const headers: Headers = fixedHeaders.slice();
    let status = 200;
    let body: readonly Buffer[] | undefined;
    try {
      body = await answer(request, response, headers);
      if (body === undefined) return;
      headers.push('content-type', JSON_CONTENT_TYPE);
    } catch (error) {
      // The one renderer of errors (http/error-answer.ts), after the rate-limit headers.
      const failure = errorAnswer(failureOf(error, deps.log));
      status = failure.status;
      for (const [name, value] of Object.entries(failure.headers)) headers.push(name, value);
      body = [Buffer.from(failure.body)];
    }
    await writeBody(request, response, status, headers, body);
  }

  const { report } = deps;
  return function mealsEndpoint(request, response) {
    const started = report === undefined ? 0 : performance.now();
    serve(request, response).then(
      () => {
        if (report === undefined) return;
        // No status when the client left before its answer was written.
        const status = response.headersSent ? response.statusCode : null;
        report(deps.log, request.method, request.url ?? '', status, performance.now() - started);
      },
      (error: unknown) => {
        // Only writing can fail here (compression, a socket gone): nothing more can be sent.
        deps.log.error({ err: error }, 'could not send the response');
        response.destroy();
      },
    );
  };
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
