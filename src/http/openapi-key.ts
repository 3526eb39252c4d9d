import {
  type Answer,
  BAD_REQUEST,
  error,
  errorExample,
  HEADERS_TOO_LARGE,
  INTERNAL_ERROR,
  responsesOf,
} from '../openapi/answers.js';
import { ORIGIN_FORBIDDEN, URI_TOO_LONG } from './openapi-responses.js';
import { COMMON_HEADERS, retryAfterHeader, UNAVAILABLE_RETRY_AFTER } from '../openapi/headers.js';
import { COMPRESSION_HEADERS, rateLimitHeaders, WWW_AUTHENTICATE_HEADER } from './openapi-headers.js';

/**
 * GET and HEAD /v1/key in the OpenAPI document (docs/api.md#your-key-and-its-limits), built
 * from the same pieces as /v1/meals's: its answers are those of /v1/meals but the ones of the
 * limits (it is never refused for them) and of the page.
 */
const SAMPLE_KEY_INFO = {
  ok: true,
  key: {
    id: 'key_7Qm2xV9cLp4R',
    name: 'backoffice',
    prefix: 'mxk_AbC12dEf',
    userId: 'u_42',
    createdAt: '2026-11-01T08:00:00.000Z',
    expiresAt: null,
  },
  limits: {
    daily: 1000,
    usedToday: 12,
    remainingToday: 988,
    resetsAt: '2026-11-26T00:00:00.000Z',
    minIntervalMs: 3000,
    nextAcceptedAt: '2026-11-25T10:00:03.000Z',
  },
};

const KEY_ANSWERS: Readonly<Record<string, Answer>> = {
  '200': {
    description:
      'The key and where it stands against its limits. This request counted nothing: the rate-limit headers say what is left as it stands.',
    schema: 'KeyInfo',
    headers: { ...COMMON_HEADERS, ...COMPRESSION_HEADERS, ...rateLimitHeaders(true) },
    examples: {
      interval: { summary: 'Within the interval after a request', value: SAMPLE_KEY_INFO },
      spent: {
        summary: "Today's quota used up: the next request is accepted at resetsAt",
        value: {
          ...SAMPLE_KEY_INFO,
          limits: {
            ...SAMPLE_KEY_INFO.limits,
            usedToday: 1000,
            remainingToday: 0,
            nextAcceptedAt: SAMPLE_KEY_INFO.limits.resetsAt,
          },
        },
      },
    },
  },
  '400': error(
    'invalid_parameter: this path takes no query parameter (error.param names the first; the answer carries the rate-limit headers, and nothing is counted), or bad_request (a request the HTTP parser refuses).',
    rateLimitHeaders(false),
    errorExample('invalid_parameter', 'GET /v1/key takes no query parameters.', 'limit'),
    BAD_REQUEST,
  ),
  '401': error(
    'missing_api_key or invalid_api_key, exactly as /v1/meals answers them.',
    WWW_AUTHENTICATE_HEADER,
    errorExample('missing_api_key', 'Missing API key.'),
    errorExample('invalid_api_key', 'Invalid API key.'),
  ),
  '403': ORIGIN_FORBIDDEN,
  '414': URI_TOO_LONG,
  '429': error(
    "rate_limited: too many failed authentications from this client address (never for the key's limits). Wait for Retry-After.",
    retryAfterHeader(60),
    errorExample('rate_limited', 'Too many failed authentications from this address: retry later.'),
  ),
  '431': HEADERS_TOO_LARGE,
  '500': INTERNAL_ERROR(rateLimitHeaders(false)),
  '503': error(
    'unavailable: storage or the limiter does not answer; try again after Retry-After.',
    retryAfterHeader(UNAVAILABLE_RETRY_AFTER),
    errorExample('unavailable', 'Storage is unavailable.'),
  ),
};

const DESCRIPTION =
  "Free: never counted against the key's limits and never refused for them. Authenticated like /v1/meals (the same 401s, and the same guard against failed authentications).";

/** The path item of /v1/key: GET, and HEAD with the same answers without bodies. */
export function keyOperations(): object {
  const operation = (method: 'get' | 'head') => ({
    operationId: method === 'get' ? 'getKey' : 'headKey',
    tags: ['Keys'],
    summary:
      method === 'get'
        ? 'The key of the request and where it stands against its limits, without spending a request.'
        : 'GET /v1/key without the body: the same status and headers, counting nothing alike.',
    description: DESCRIPTION,
    responses: responsesOf(KEY_ANSWERS, method === 'get'),
  });
  return {
    description:
      'Read-only: any other method is answered 405 method_not_allowed with Allow: GET, HEAD (x-responses-without-operation).',
    get: operation('get'),
    head: operation('head'),
  };
}

/** Its tag in the document's list. */
export const KEYS_TAG = { name: 'Keys', description: 'The API key of the request: what it is and where it stands.' };
