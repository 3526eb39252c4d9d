import type { FastifyInstance } from 'fastify';
import type { CursorCodec } from '../domain/cursor.js';
import type { KeyAuthenticator } from '../domain/key-authenticator.js';
import { renderMealPage } from '../domain/meal-page.js';
import { parseMealsQuery } from '../domain/meals-query.js';
import { AppError } from '../errors.js';
import type { AuthFailureLimiter, RateLimiter, RateLimitPolicy } from '../ratelimit/rate-limiter.js';
import type { Storage } from '../storage/storage.js';
import { authenticateRequest } from './authenticate.js';
import { JSON_CONTENT_TYPE } from './json-response.js';
import { rateLimitPolicyHeader, retryAfterSeconds, setRateLimitHeaders } from './rate-limit-headers.js';

export interface MealsRouteDeps {
  readonly storage: Storage;
  readonly authenticator: KeyAuthenticator;
  readonly limiter: RateLimiter;
  readonly authFailures: AuthFailureLimiter;
  readonly policy: RateLimitPolicy;
  readonly cursors: CursorCodec;
  /** How long tombstones are kept: older includeDeleted starting points get 410. */
  readonly tombstoneRetentionMs: number;
}

/**
 * GET /v1/meals (HEAD answers and counts the same, without a body). After the gatekeeper:
 * authentication, rate limit, parameters, in the contract's order (CONTRACT.md section 5).
 */
export function registerMealsRoute(app: FastifyInstance, deps: MealsRouteDeps): void {
  const policyHeader = rateLimitPolicyHeader(deps.policy);

  app.get('/v1/meals', async (request, reply) => {
    const now = Date.now();
    const key = await authenticateRequest(request, deps.authenticator, deps.authFailures, now);
    deps.authenticator.noteUse(key.id, now);

    const decision = await deps.limiter.consume(key.id, now);
    setRateLimitHeaders(reply, policyHeader, deps.policy, decision, now);
    if (!decision.allowed) {
      throw new AppError('rate_limited', 'Rate limit exceeded: wait for Retry-After seconds.', {
        headers: { 'retry-after': retryAfterSeconds(decision.retryAfterMs) },
      });
    }

    const url = request.raw.url ?? '';
    const queryStart = url.indexOf('?');
    const query = parseMealsQuery(queryStart < 0 ? '' : url.slice(queryStart + 1), (cursor) =>
      deps.cursors.decode(key.userId, cursor),
    );
    const startsAt = query.cursor?.modifiedAt ?? query.lastModifiedSince;
    if (query.includeDeleted && startsAt < now - deps.tombstoneRetentionMs) {
      throw new AppError(
        'resync_required',
        'Deleted meals older than the tombstone retention are gone: sync again from the beginning without includeDeleted, then follow the changes.',
      );
    }

    const page = await deps.storage.listFeed({
      userId: key.userId,
      from: query.lastModifiedSince,
      after: query.cursor,
      includeDeleted: query.includeDeleted,
      limit: query.limit,
    });
    const nextCursor = page.last === undefined ? null : deps.cursors.encode(key.userId, page.last);
    return reply
      .type(JSON_CONTENT_TYPE)
      .send(renderMealPage(key.userId, query.lastModifiedSince, page.items, page.count, page.hasMore, nextCursor));
  });
}
