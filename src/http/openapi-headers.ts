import { BEARER_CHALLENGE } from './authenticate.js';
import { ENCODINGS } from './compression.js';
import { type HeaderObject, type Headers, wwwAuthenticateHeader } from '../openapi/headers.js';
import { instantSchema } from '../openapi/schemas.js';
import { OAUTH_FORM_METHODS, PUBLIC_METHODS } from './public-routes.js';

/*
 * The response headers of the public OpenAPI document only (docs/api.md#the-openapi-document);
 * those the host API's document gives too are in openapi/headers.ts. Content-Type is the media
 * type of each response's content (OpenAPI ignores a Content-Type header object) and transport
 * headers (Date, Content-Length…) are left out.
 */

/** On an answer whose body the server compressed: over 1 KiB, when Accept-Encoding asks (section 1). */
export const COMPRESSION_HEADERS: Headers = {
  'Content-Encoding': {
    description: 'br or gzip, as Accept-Encoding asked, when the body is over 1 KiB; absent otherwise.',
    schema: { type: 'string', enum: [...ENCODINGS] },
    example: 'gzip',
  },
  Vary: {
    description: 'Sent with Content-Encoding: the body depends on Accept-Encoding.',
    schema: { type: 'string', const: 'accept-encoding' },
    example: 'accept-encoding',
  },
};

/**
 * The rate-limit headers of every answer to an accepted key (section 4). The limits are the
 * server's settings (`serve --min-interval-ms`, `--daily-limit`): they are read from
 * RateLimit-Policy, never written in this document, which is the same on every server.
 */
export function rateLimitHeaders(required: boolean): Headers {
  const header = (description: string, schema: object, example: string | number): HeaderObject => ({
    description,
    required,
    schema,
    example,
  });
  return {
    'RateLimit-Policy': header(
      'This server\'s limits per key (draft-ietf-httpapi-ratelimit-headers): "daily";q=<requests>;w=86400, then, when there is a least interval between two requests, "interval";q=1;w=<seconds>. The example shows the defaults.',
      { type: 'string', pattern: '^"daily";q=[0-9]+;w=86400(, "interval";q=1;w=[0-9]+)?$' },
      '"daily";q=1000;w=86400, "interval";q=1;w=3',
    ),
    RateLimit: header(
      'What is left of the daily quota after this request: "daily";r=<remaining>;t=<seconds until 00:00 UTC>.',
      { type: 'string', pattern: '^"daily";r=[0-9]+;t=[0-9]+$' },
      '"daily";r=998;t=43200',
    ),
    'X-RateLimit-Limit': header('The daily quota.', { type: 'integer', minimum: 0 }, 1000),
    'X-RateLimit-Remaining': header('What is left of it today.', { type: 'integer', minimum: 0 }, 998),
    'X-RateLimit-Reset': header('Unix seconds of the next 00:00 UTC.', { type: 'integer', minimum: 0 }, 1767225600),
  };
}

/** On every 401 of the public listener. */
export const WWW_AUTHENTICATE_HEADER: Headers = wwwAuthenticateHeader(BEARER_CHALLENGE);

/** On every 405 (section 5). */
export const ALLOW_HEADER: Headers = {
  Allow: {
    description:
      "The path's methods: GET, HEAD for the API's own paths; POST for Connect's token and revocation endpoints.",
    required: true,
    schema: { type: 'string', enum: [PUBLIC_METHODS, OAUTH_FORM_METHODS] },
    example: PUBLIC_METHODS,
  },
};

/** On a 200 of /v1/meals. */
export const MEALS_LAST_MODIFIED_HEADER: Headers = {
  'Meals-Last-Modified': {
    description:
      "The modifiedAt of the user's newest change of any kind (a create, a change or a deletion) as of the snapshot this page was read from; absent when the user has never had a change. A client that pages through the whole feed without includeDeleted keeps this header of the pass's first page (a later page's value may come after a deletion the pass did not see) and, once the pass is over, follows the changes from that instant plus 1 ms (with includeDeleted=true), missing none.",
    schema: { type: 'string', pattern: instantSchema.pattern },
    example: '2025-03-14T12:30:00.000Z',
  },
  'Meals-Digest': {
    description:
      "On a page whose hasMore is false: the user's live (not deleted) meals in the snapshot this page was read from, whatever the request's parameters. `count` is their number; `sum` is the sum modulo 2^128 of one term per meal, the first 16 bytes of SHA-256 over the UTF-8 bytes of `<id>`, a line feed and `<modifiedAt>` (as this API writes it), read as an unsigned big-endian integer, in 32 lowercase hex digits. A client that mirrors the feed (a first pass, then following with includeDeleted=true) computes the same two values over its copy once it applied such a page; if they differ, its copy is wrong and it syncs again from the beginning. Absent on a page with hasMore true.",
    schema: { type: 'string', pattern: '^count=(0|[1-9][0-9]*), sum=[0-9a-f]{32}$' },
    example: 'count=2, sum=1f3a9c0b77e2d4415a6b8c9d0e1f2a3b',
  },
};
