import { notFoundMessage, PUBLIC_API_WHERE } from '../listener/not-found.js';
import {
  type Answer,
  BAD_REQUEST,
  error,
  errorExample,
  HEADERS_TOO_LARGE,
  INTERNAL_ERROR,
  type Responses,
  responsesOf,
} from '../openapi/answers.js';
import { COMMON_HEADERS, retryAfterHeader, UNAVAILABLE_RETRY_AFTER } from '../openapi/headers.js';
import { SAMPLE_MEAL, SAMPLE_WEST_MEAL } from './openapi-meal-examples.js';
import { PACKAGE_VERSION } from '../version.js';
import {
  ALLOW_HEADER,
  COMPRESSION_HEADERS,
  MEALS_LAST_MODIFIED_HEADER,
  rateLimitHeaders,
  WWW_AUTHENTICATE_HEADER,
} from './openapi-headers.js';

/*
 * The answers of the public OpenAPI document (docs/api.md#the-openapi-document), status by
 * status, built with the pieces both documents use (openapi/answers.ts).
 */

export const URI_TOO_LONG = error(
  'request_too_large: the URL is over 8 KiB.',
  {},
  errorExample('request_too_large', 'The URL is longer than 8 KiB.'),
);
const BROWSER_FORBIDDEN = errorExample(
  'browser_forbidden',
  'This API is not for browsers: call it from a server, where the API key stays secret.',
);
export const ORIGIN_FORBIDDEN = error(
  'browser_forbidden: the request has an Origin header, which only browsers send; keys must never be used from a browser.',
  {},
  BROWSER_FORBIDDEN,
);

const SAMPLE_PAGE = {
  ok: true,
  userId: 'u_42',
  lastModifiedSince: '2025-01-01T00:00:00.000Z',
  count: 2,
  meals: [SAMPLE_MEAL, SAMPLE_WEST_MEAL],
  hasMore: false,
  nextCursor: 'c1.ZXhhbXBsZQ',
};

const MEALS_ANSWERS: Readonly<Record<string, Answer>> = {
  '200': {
    description:
      'A page of meals, in (modifiedAt, id) order. hasMore: call again with the same lastModifiedSince and cursor=nextCursor.',
    schema: 'MealPage',
    headers: { ...COMMON_HEADERS, ...COMPRESSION_HEADERS, ...rateLimitHeaders(true), ...MEALS_LAST_MODIFIED_HEADER },
    examples: {
      page: { summary: 'A page', value: SAMPLE_PAGE },
      includeDeleted: {
        summary: 'With includeDeleted=true: live meals carry deleted: false, a deleted meal is a tombstone',
        value: {
          ...SAMPLE_PAGE,
          count: 2,
          meals: [
            { ...SAMPLE_MEAL, deleted: false },
            { id: 'm_01J9ZQ7T2C', modifiedAt: '2025-03-14T09:02:40.007Z', deleted: true },
          ],
        },
      },
      empty: {
        summary: 'Nothing new: keep the cursor you sent',
        value: { ...SAMPLE_PAGE, count: 0, meals: [], nextCursor: null },
      },
    },
  },
  '400': error(
    'missing_parameter or invalid_parameter (error.param names the first parameter at fault; the request counts against the limits and carries the rate-limit headers), or bad_request (a request the HTTP parser refuses).',
    rateLimitHeaders(false),
    errorExample(
      'missing_parameter',
      'lastModifiedSince is required: an ISO 8601 date-time such as 2025-01-01T00:00:00Z.',
      'lastModifiedSince',
    ),
    errorExample('invalid_parameter', 'limit must be a whole number from 1 to 5000.', 'limit'),
    BAD_REQUEST,
  ),
  '401': error(
    'missing_api_key (no Authorization header, or Bearer with no key) or invalid_api_key (one message for every kind of bad key).',
    WWW_AUTHENTICATE_HEADER,
    errorExample('missing_api_key', 'Missing API key.'),
    errorExample('invalid_api_key', 'Invalid API key.'),
  ),
  '403': ORIGIN_FORBIDDEN,
  '410': error(
    'resync_required: with includeDeleted=true, a tombstone the store has pruned belongs in the answer: the starting point (the later of lastModifiedSince, inclusive, and the cursor, exclusive) is at or before the newest tombstone pruned for this user. Sync again from the beginning without includeDeleted, then follow the changes. A user with no pruned tombstone never gets it.',
    rateLimitHeaders(true),
    errorExample(
      'resync_required',
      'Deleted meals from that far back have been pruned: sync again from the beginning without includeDeleted, then follow the changes.',
    ),
  ),
  '414': URI_TOO_LONG,
  '429': error(
    "rate_limited: over the key's limits (the answer carries the rate-limit headers), or too many failed authentications from this client address (it carries none). Wait for Retry-After.",
    { ...rateLimitHeaders(false), ...retryAfterHeader(3) },
    errorExample('rate_limited', 'Rate limit exceeded: wait for Retry-After seconds.'),
    errorExample(
      'rate_limited',
      'Too many failed authentications from this address: retry later.',
      undefined,
      'rate_limited_failed_authentications',
    ),
  ),
  '431': HEADERS_TOO_LARGE,
  '500': INTERNAL_ERROR(rateLimitHeaders(false)),
  '503': error(
    'unavailable: storage unreachable; try again after Retry-After.',
    { ...rateLimitHeaders(false), ...retryAfterHeader(UNAVAILABLE_RETRY_AFTER) },
    errorExample('unavailable', 'Storage is unavailable.'),
  ),
};

/** The answers of GET /v1/meals (`withBody`), or of HEAD /v1/meals. */
export function mealsResponses(withBody: boolean): Responses {
  return responsesOf(MEALS_ANSWERS, withBody);
}

/** What every route without a key may answer besides its 200 (and /readyz its 503). */
const INFO_REFUSALS: Readonly<Record<string, Answer>> = {
  '400': error('bad_request: a request the HTTP parser refuses.', {}, BAD_REQUEST),
  '403': ORIGIN_FORBIDDEN,
  '414': URI_TOO_LONG,
  '431': HEADERS_TOO_LARGE,
  '500': INTERNAL_ERROR({}),
};

const OK_EXAMPLES = { ok: { summary: 'The only answer', value: { ok: true } } };

/** The answers of GET (`withBody`) or HEAD /healthz. */
export function healthResponses(withBody: boolean): Responses {
  const alive: Answer = {
    description: 'The process runs.',
    schema: 'Ok',
    headers: COMMON_HEADERS,
    examples: OK_EXAMPLES,
  };
  return responsesOf({ '200': alive, ...INFO_REFUSALS }, withBody);
}

/** The answers of GET (`withBody`) or HEAD /readyz. */
export function readinessResponses(withBody: boolean): Responses {
  const ready: Answer = {
    description: 'Storage and limiter answer.',
    schema: 'Ok',
    headers: COMMON_HEADERS,
    examples: OK_EXAMPLES,
  };
  const notReady = error(
    'unavailable: storage or limiter does not answer.',
    retryAfterHeader(UNAVAILABLE_RETRY_AFTER),
    errorExample('unavailable', 'Not ready: storage or limiter does not answer.'),
  );
  return responsesOf({ '200': ready, ...INFO_REFUSALS, '503': notReady }, withBody);
}

/** The answers of GET (`withBody`) or HEAD /v1/openapi.json. */
export function openApiResponses(withBody: boolean): Responses {
  const document: Answer = {
    description: 'This document: the same on every server, whatever its settings.',
    schema: 'OpenApiDocument',
    headers: { ...COMMON_HEADERS, ...COMPRESSION_HEADERS },
    examples: {
      document: {
        summary: 'Its first fields',
        value: { openapi: '3.1.0', info: { title: 'meal-export', version: PACKAGE_VERSION }, paths: {} },
      },
    },
  };
  return responsesOf({ '200': document, ...INFO_REFUSALS }, withBody);
}

/**
 * What the service answers to a request that no operation of the document describes: another
 * path, another method, OPTIONS, or a request refused before its route is known
 * (docs/errors.md). They belong to no operation, so the document gives them under an extension
 * rather than as operations a client generator would turn into methods that always fail.
 */
export const RESPONSES_WITHOUT_OPERATION: Responses = responsesOf(
  {
    '400': error('bad_request: a request the HTTP parser refuses, or whose path does not decode.', {}, BAD_REQUEST),
    '403': error(
      'browser_forbidden: OPTIONS, on any path, even an unknown one (the service sends no CORS headers).',
      {},
      BROWSER_FORBIDDEN,
    ),
    '404': error(
      'not_found: any path not in this document, such as /v2/meals or /v1/meal.',
      {},
      errorExample('not_found', notFoundMessage(PUBLIC_API_WHERE)),
    ),
    '405': error(
      "method_not_allowed: a method the path does not answer (POST, PUT, PATCH, DELETE… on the API's paths; GET on Connect's forms) on a path of this document.",
      ALLOW_HEADER,
      errorExample('method_not_allowed', 'POST is not allowed here: use GET or HEAD.'),
    ),
    '414': URI_TOO_LONG,
    '431': HEADERS_TOO_LARGE,
  },
  true,
);
