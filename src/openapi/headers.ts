import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../listener/failure.js';
import { ALWAYS_SENT_HEADERS, HSTS } from '../listener/json-response.js';

/**
 * The response headers both OpenAPI documents give (the public one, docs/api.md#the-openapi-document,
 * and the host API's, docs/host-api.md): each with its schema and an example, fixed values taken
 * from the code that sends them, so that neither document can drift from the answers.
 */
export interface HeaderObject {
  readonly description: string;
  readonly required?: boolean;
  readonly schema: object;
  readonly example: string | number;
}

export type Headers = Readonly<Record<string, HeaderObject>>;

export const fixed = (value: string, description: string, required: boolean): HeaderObject => ({
  description,
  required,
  schema: { type: 'string', const: value },
  example: value,
});

/** On every answer of every listener, errors included. */
export const COMMON_HEADERS: Headers = {
  'Cache-Control': fixed(ALWAYS_SENT_HEADERS['cache-control'], 'No answer may be stored by a cache.', true),
  'X-Content-Type-Options': fixed(
    ALWAYS_SENT_HEADERS['x-content-type-options'],
    'The body is JSON, never sniffed.',
    true,
  ),
  'Strict-Transport-Security': fixed(
    HSTS,
    'On every answer over TLS; absent when the server runs with --insecure-http behind a TLS-terminating proxy, which sets its own.',
    false,
  ),
};

/** On a 429 (the limits, or too many failed authentications) and a 503. */
export function retryAfterHeader(example: number): Headers {
  return {
    'Retry-After': {
      description: 'Whole seconds (rounded up) until a request will be accepted.',
      required: true,
      schema: { type: 'integer', minimum: 1 },
      example,
    },
  };
}

/** The wait a 503 names: a restart or a fail-over of the store. */
export const UNAVAILABLE_RETRY_AFTER = Number(UNAVAILABLE_RETRY_AFTER_SECONDS);

/** On every 401 of a listener whose challenge is `challenge`: the host API has a realm of its own. */
export function wwwAuthenticateHeader(challenge: string): Headers {
  return {
    'WWW-Authenticate': fixed(challenge, 'The scheme and realm to authenticate with (RFC 9110 section 11.6.1).', true),
  };
}
