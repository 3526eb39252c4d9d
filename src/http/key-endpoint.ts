import type { FastifyInstance } from 'fastify';
import { redactApiKeys } from '../domain/api-key.js';
import { keyInfoOf } from '../domain/key-info.js';
import { AppError } from '../errors.js';
import type { KeyAuthenticator } from '../keys/key-authenticator.js';
import type { RateLimiter, RateLimitPolicy } from '../ratelimit/rate-limiter.js';
import { type AuthFailureGuard, authenticateIncoming } from './authenticate.js';
import type { TrustedProxies } from '../listener/client-address.js';
import { sendError } from '../listener/error-answer.js';
import { JSON_CONTENT_TYPE } from '../listener/json-response.js';
import { KEY_PATH } from './public-routes.js';
import { addRateLimitHeaders, rateLimitPolicyHeader } from './rate-limit-headers.js';

export interface KeyEndpointDeps {
  readonly authenticator: KeyAuthenticator;
  readonly limiter: RateLimiter;
  /** The brute-force guard, one for every authenticated route, so a block learnt on one holds on all. */
  readonly authGuard: AuthFailureGuard;
  /** Proxies whose X-Forwarded-For names the client, for the brute-force guard (undefined: none). */
  readonly trustedProxies: TrustedProxies | undefined;
  readonly policy: RateLimitPolicy;
}

/**
 * GET and HEAD /v1/key (docs/api.md#your-key-and-its-limits): the key and where it stands
 * against its limits, without spending a request. The front door has run its checks (size,
 * OPTIONS, route, method, Origin); then, in the order of /v1/meals (docs/errors.md#errors):
 * authentication, by the same function and the same brute-force guard, then the parameters,
 * of which there are none. The limiter is only peeked: nothing is counted and nothing is
 * refused for the limits, and the rate-limit headers say where the key stands.
 */
export function registerKeyEndpoint(app: FastifyInstance, deps: KeyEndpointDeps): void {
  const policyHeader = rateLimitPolicyHeader(deps.policy);

  app.get(KEY_PATH, async (request, reply) => {
    const now = Date.now();
    const key = await authenticateIncoming(request.raw, deps, deps.authGuard, now);
    const standing = await deps.limiter.peek(key.id, now);
    // The key was used (keys list's lastUsedAt), but no request was accepted: nothing counts.
    deps.authenticator.noteUse(key.id, now, false);
    const headers: string[] = [];
    addRateLimitHeaders(headers, policyHeader, deps.policy, standing, now);
    for (let i = 0; i + 1 < headers.length; i += 2) reply.header(headers[i] ?? '', headers[i + 1]);

    const parameter = firstQueryParameter(request.url);
    // Answered here rather than thrown, so that the 400 keeps the rate-limit headers set above.
    if (parameter !== undefined) return sendError(reply, noParameters(parameter));
    const { dailyLimit, minIntervalMs } = deps.policy;
    const info = keyInfoOf(key, { ...standing, dailyLimit, minIntervalMs }, now);
    return reply.type(JSON_CONTENT_TYPE).send(JSON.stringify(info));
  });
}

/** The name of the first query parameter, percent-decoded when it decodes; undefined when none. */
function firstQueryParameter(url: string): string | undefined {
  const start = url.indexOf('?');
  if (start < 0) return undefined;
  const part = url
    .slice(start + 1)
    .split('&')
    .find((p) => p !== '');
  if (part === undefined) return undefined;
  const eq = part.indexOf('=');
  const raw = eq < 0 ? part : part.slice(0, eq);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** `param` names it (docs/errors.md#errors), but a key pasted there by mistake is not sent back. */
function noParameters(name: string): AppError {
  return new AppError('invalid_parameter', 'GET /v1/key takes no query parameters.', { param: redactApiKeys(name) });
}
