import { type ErrorCode, errorBody } from '../errors.js';
import { HOST_API_WHERE, notFoundMessage } from '../listener/not-found.js';
import {
  COMMON_HEADERS,
  type Headers,
  retryAfterHeader,
  UNAVAILABLE_RETRY_AFTER,
  wwwAuthenticateHeader,
} from '../openapi/headers.js';
import {
  type Answer,
  BAD_REQUEST,
  type Component,
  error,
  errorExample,
  type Example,
  HEADERS_TOO_LARGE,
  INTERNAL_ERROR,
  type Responses,
  responsesOf,
} from '../openapi/answers.js';
import { AUTH_FAILURE_POLICY } from '../ratelimit/rate-limiter.js';
import { HOST_BEARER_CHALLENGE } from './host-auth.js';
import { BODY_FAULTS, MAX_JSON_BODY_BYTES } from './host-body.js';

/**
 * The answers of the host API's OpenAPI document (docs/host-api.md#errors), built with the
 * public document's pieces (http/openapi-responses.ts): the same headers, the same error body,
 * the host API's codes and words. Messages are the service's own, so an example is an answer.
 */

/** An error body with the import's `line`, as errors.ts renders it. */
export function lineExample(
  code: ErrorCode,
  message: string,
  line: number,
  param?: string,
  summary: string = code,
): Example {
  return { summary, value: JSON.parse(errorBody(code, message, param, line)) };
}

/** A success: its body's component schema and examples, with the headers of every answer. */
export function success(description: string, schema: Component, examples: Readonly<Record<string, Example>>): Answer {
  return { description, schema, headers: COMMON_HEADERS, examples };
}

export const UNKNOWN_QUERY_PARAMETER = errorExample(
  'invalid_parameter',
  'Unknown query parameter.',
  'limit',
  'unknown_query_parameter',
);
export const BODY_NOT_JSON = errorExample('bad_request', BODY_FAULTS.notJson, undefined, 'body_not_json');
export const BODY_OF_ANOTHER_TYPE = errorExample(
  'bad_request',
  BODY_FAULTS.notSentAsJson,
  undefined,
  'body_of_another_type',
);
export const BODY_MISSING = errorExample('bad_request', BODY_FAULTS.missing, undefined, 'body_missing');
export const BODY_NOT_UTF8 = errorExample('bad_request', BODY_FAULTS.notUtf8, undefined, 'not_utf8');
export const IMPORT_NOT_JSON_LINES = errorExample(
  'bad_request',
  BODY_FAULTS.notSentAsJsonLines,
  undefined,
  'sent_as_json',
);

/** A 400 of an operation: its own examples, then a request the HTTP parser refuses. */
export const badRequest = (description: string, ...examples: Example[]): Answer =>
  error(`${description} Or bad_request: a request the HTTP parser refuses.`, {}, ...examples, BAD_REQUEST);

export const jsonTooLarge = error(
  `request_too_large: the body is over ${MAX_JSON_BODY_BYTES / 1024 / 1024} MiB. Nothing was written; the rest of the body is read and dropped (up to 16 MiB more) before the answer's connection closes, so a client that sends its whole body first reads it.`,
  {},
  errorExample('request_too_large', 'The body is larger than 1 MiB.'),
);

export const invalidRecord = (description: string, ...examples: Example[]): Answer =>
  error(`invalid_record: ${description} error.param names the field at fault when one is.`, {}, ...examples);

export const notFound = (what: string, description: string): Answer =>
  error(`not_found: ${description}`, {}, errorExample('not_found', `No such ${what}.`));

const BROWSER_FORBIDDEN = errorExample(
  'browser_forbidden',
  "The host API is not for browsers: call it from the app's back end.",
);

/** A URL the HTTP parser cannot take: the host API reads a request's head up to Node's 16 KiB. */
const URI_TOO_LONG = error(
  "request_too_large: the request line alone is past the 16 KiB the HTTP parser reads of a request's head.",
  {},
  errorExample('request_too_large', 'The URL is longer than 8 KiB.'),
);

const WINDOW_SECONDS = AUTH_FAILURE_POLICY.windowMs / 1000;

const PARSER_REFUSAL = error('bad_request: a request the HTTP parser refuses.', {}, BAD_REQUEST);

/** What any request with a service token may be answered besides its operation's own answers. */
export const REFUSALS_OF_EVERY_REQUEST: Readonly<Record<string, Answer>> = {
  '400': PARSER_REFUSAL,
  '401': error(
    "missing_token (no Authorization header, or Bearer without a token) or invalid_token (anything else: one answer for every kind of bad token, a user's API key included). Neither says more (docs/host-api.md#service-tokens).",
    wwwAuthenticateHeader(HOST_BEARER_CHALLENGE),
    errorExample('missing_token', 'Missing service token.'),
    errorExample('invalid_token', 'Invalid service token.'),
  ),
  '403': error(
    "browser_forbidden: the request has an Origin header, which only browsers send; the service token never leaves the app's back end.",
    {},
    BROWSER_FORBIDDEN,
  ),
  '408': error(
    'request_timeout: the body did not arrive within the 30 s a request has; nothing of it was written, and the connection closes.',
    {},
    errorExample('request_timeout', 'The body did not arrive within 30 s: send it whole, then read the answer.'),
  ),
  '414': URI_TOO_LONG,
  '429': error(
    `rate_limited: ${AUTH_FAILURE_POLICY.maxFailures} failed authentications within ${WINDOW_SECONDS} s from this client address (on this listener or the public one): its requests without a valid token are refused until Retry-After. The host API has no other limit.`,
    retryAfterHeader(WINDOW_SECONDS),
    errorExample('rate_limited', 'Too many failed authentications from this address: retry later.'),
  ),
  '431': HEADERS_TOO_LARGE,
  '500': INTERNAL_ERROR({}),
  '503': error(
    'unavailable: storage does not answer (or its disk is full); try again after Retry-After. Nothing was written.',
    retryAfterHeader(UNAVAILABLE_RETRY_AFTER),
    errorExample('unavailable', 'Storage is unavailable.'),
  ),
};

/** What the one path without a token (the document itself) may be answered besides its 200. */
export const REFUSALS_WITHOUT_TOKEN: Readonly<Record<string, Answer>> = {
  '400': PARSER_REFUSAL,
  '403': error('browser_forbidden: the request has an Origin header, which only browsers send.', {}, BROWSER_FORBIDDEN),
  '414': URI_TOO_LONG,
  '431': HEADERS_TOO_LARGE,
  '500': INTERNAL_ERROR({}),
};

/** An operation of the document; `answers` are its own, beside the refusals of every request. */
export interface OperationWords {
  readonly operationId: string;
  readonly tags: readonly string[];
  readonly summary: string;
  readonly description: string;
  /** `[]` for the one operation open without a token. */
  readonly security?: readonly object[];
  readonly parameters?: readonly object[];
  readonly requestBody?: object;
  readonly answers: Readonly<Record<string, Answer>>;
}

export function operationOf(
  operation: OperationWords,
  withBody = true,
  refusals: Readonly<Record<string, Answer>> = REFUSALS_OF_EVERY_REQUEST,
): object {
  const { answers, ...rest } = operation;
  return { ...rest, responses: responsesOf({ ...refusals, ...answers }, withBody) };
}

const ALLOW_HEADER: Headers = {
  Allow: {
    description: "The path's methods, as its description lists them (HEAD beside GET).",
    required: true,
    schema: { type: 'string', pattern: '^(GET|HEAD|PUT|POST|DELETE)(, (GET|HEAD|PUT|POST|DELETE))*$' },
    example: 'GET, HEAD, PUT, DELETE',
  },
};

/**
 * What the host API answers to a request no operation describes, before any token is read:
 * another path, another method, OPTIONS, or what the HTTP parser refuses (docs/host-api.md#errors).
 */
export const HOST_RESPONSES_WITHOUT_OPERATION: Responses = responsesOf(
  {
    '400': error('bad_request: a request the HTTP parser refuses, or whose path does not decode.', {}, BAD_REQUEST),
    '403': error('browser_forbidden: OPTIONS, on any path, even an unknown one (no CORS here).', {}, BROWSER_FORBIDDEN),
    '404': error(
      'not_found: any path not in this document, such as /host/v2/users or /v1/meals (the public listener is another port).',
      {},
      errorExample('not_found', notFoundMessage(HOST_API_WHERE)),
    ),
    '405': error(
      'method_not_allowed: a method the path does not answer; Allow lists those it does. Answered before the token is read.',
      ALLOW_HEADER,
      errorExample('method_not_allowed', 'PATCH is not allowed here.'),
    ),
    '414': URI_TOO_LONG,
    '431': HEADERS_TOO_LARGE,
  },
  true,
);
