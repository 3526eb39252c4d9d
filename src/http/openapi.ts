import {
  healthResponses,
  mealsResponses,
  openApiResponses,
  readinessResponses,
  RESPONSES_WITHOUT_OPERATION,
} from './openapi-responses.js';
import { keyInfoSchema } from './key-info-schema.js';
import { KEYS_TAG, keyOperations } from './openapi-key.js';
import { liveMealSchema, okSchema, openApiDocumentSchema, tombstoneSchema } from '../openapi/schemas.js';
import {
  errorSchema,
  mealPageSchema,
  mealsChangedEventSchema,
  mealsQueryParameters,
  userErasedEventSchema,
  webhookTestEventSchema,
} from './schemas.js';
import { CONNECT_SCHEMAS, CONNECT_SECURITY_SCHEMES, connectPaths } from './openapi-connect.js';

/** The Standard Webhooks headers of every call (docs/webhooks.md#the-call). */
const WEBHOOK_HEADERS = {
  'webhook-id': {
    required: true,
    description: 'msg_ + random: the same on every retry of one event; deduplicate on it.',
    schema: { type: 'string' },
  },
  'webhook-timestamp': {
    required: true,
    description: 'Unix seconds of this attempt; refuse one more than 5 minutes from your clock.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'webhook-signature': {
    required: true,
    description:
      'v1, + base64 of HMAC-SHA256, keyed with the base64-decoded part of the endpoint secret after whsec_, of "<webhook-id>.<webhook-timestamp>.<body>"; two such entries separated by a space for 24 h after a rotation. The SDK checks it: verifyWebhook(secret, headers, body).',
    schema: { type: 'string' },
  },
};

const WEBHOOK_EXAMPLES = {
  mealsChanged: {
    summary: 'Meals changed: read them from your saved position',
    value: {
      type: 'meals.changed',
      timestamp: '2026-11-23T10:00:00.000Z',
      data: { userId: 'u_42', from: '2026-11-23T09:59:58.120Z', through: '2026-11-23T09:59:59.870Z' },
    },
  },
  test: {
    summary: 'A test call (webhooks test, the app page)',
    value: { type: 'webhook.test', timestamp: '2026-11-23T10:05:00.000Z', data: { userId: 'u_42' } },
  },
};

const MEALS_DESCRIPTION =
  "Rate limits per key: a least interval between two requests and a daily quota (reset at midnight UTC), both this server's settings, given on every answer to an accepted key in the RateLimit-Policy header. A request over them is refused with rate_limited and Retry-After.";

/** GET and HEAD of a route that needs no key: one operation pair, HEAD's answers without bodies. */
function infoOperations(
  name: string,
  summary: string,
  description: string,
  responses: (withBody: boolean) => object,
): object {
  const operation = (method: 'get' | 'head') => ({
    operationId: `${method}${name}`,
    tags: ['Service'],
    security: [],
    summary: method === 'get' ? summary : `${summary} Without the body.`,
    description,
    responses: responses(method === 'get'),
  });
  return { get: operation('get'), head: operation('head') };
}

/** The OpenAPI 3.1 document of the public API, built once at start-up from the schemas. */
export function buildOpenApiDocument(version: string): object {
  return {
    openapi: '3.1.0',
    info: {
      title: 'meal-export',
      version,
      description:
        'Read-only incremental sync of the meals a user recorded in the app. Every request to /v1/meals carries Authorization: Bearer <API key>. Every answer is JSON, errors included ({"error":{"message","code","param"?}}), with Cache-Control: no-store and X-Content-Type-Options: nosniff. What the service answers to a request no operation describes (another path or method, OPTIONS) is under x-responses-without-operation.',
      contact: { name: 'The meal-export team' },
      // package.json says UNLICENSED: no licence is granted. SPDX names a licence off its list
      // LicenseRef-<name>, which is what Redocly's info-license-strict asks for.
      license: { name: 'Proprietary: all rights reserved (UNLICENSED)', identifier: 'LicenseRef-Proprietary' },
    },
    // Relative: the server the document was fetched from. It holds no address of a server, so
    // it is the same on every one (the address is the reader's, as is the certificate).
    servers: [{ url: '/', description: 'The server this document was fetched from.' }],
    tags: [
      { name: 'Meals', description: "A user's meals, read incrementally with an API key." },
      KEYS_TAG,
      { name: 'Service', description: 'Liveness, readiness and this document: no key needed.' },
      { name: 'Connect', description: 'A third party gets a key by the person’s consent: OAuth 2.0 with PKCE.' },
      { name: 'Webhooks', description: "Calls the service makes to a user's own endpoint when their meals change." },
    ],
    'x-responses-without-operation': RESPONSES_WITHOUT_OPERATION,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'mxk_… key from the app.' },
        ...CONNECT_SECURITY_SCHEMES,
      },
      schemas: {
        LiveMeal: liveMealSchema,
        Tombstone: tombstoneSchema,
        MealPage: mealPageSchema,
        Error: errorSchema,
        Ok: okSchema,
        OpenApiDocument: openApiDocumentSchema,
        MealsChangedEvent: mealsChangedEventSchema,
        WebhookTestEvent: webhookTestEventSchema,
        UserErasedEvent: userErasedEventSchema,
        ...CONNECT_SCHEMAS,
        KeyInfo: keyInfoSchema,
      },
    },
    webhooks: {
      mealsChanged: {
        post: {
          operationId: 'mealsChanged',
          tags: ['Webhooks'],
          summary: "The user's meals changed: read them with GET /v1/meals from your saved position.",
          description:
            'Sent to each endpoint a user registered (webhooks create, the app page, meal-export/host) within 2 s of a change, one event in flight per endpoint, changes meanwhile coalesced into the next event; retried 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after a failed attempt, then the endpoint is disabled (at once on 410). No meal data is sent: a lost, late or repeated call costs latency, never a change.',
          security: [],
          parameters: Object.entries(WEBHOOK_HEADERS).map(([name, header]) => ({ name, in: 'header', ...header })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  oneOf: [
                    { $ref: '#/components/schemas/MealsChangedEvent' },
                    { $ref: '#/components/schemas/WebhookTestEvent' },
                    { $ref: '#/components/schemas/UserErasedEvent' },
                  ],
                },
                examples: WEBHOOK_EXAMPLES,
              },
            },
          },
          responses: {
            '2XX': { description: 'Delivered (answer at once, then read the changes; the body is ignored).' },
            '410': { description: 'Gone: the endpoint is disabled until its user enables it again.' },
            default: { description: 'Not delivered: retried on the schedule above.' },
          },
        },
      },
    },
    security: [{ apiKey: [] }],
    paths: {
      '/v1/meals': {
        description:
          'Read-only: any other method is answered 405 method_not_allowed with Allow: GET, HEAD (x-responses-without-operation).',
        get: {
          operationId: 'listMeals',
          tags: ['Meals'],
          summary: 'The meals modified since an instant, in (modifiedAt, id) order, paged by cursor.',
          description: MEALS_DESCRIPTION,
          parameters: mealsQueryParameters,
          responses: mealsResponses(true),
        },
        head: {
          operationId: 'headMeals',
          tags: ['Meals'],
          summary: 'GET /v1/meals without the body: the same status and headers, counted against the limits alike.',
          description: `${MEALS_DESCRIPTION} With wait, it is held as a GET is.`,
          parameters: mealsQueryParameters,
          responses: mealsResponses(false),
        },
      },
      '/v1/key': keyOperations(),
      '/healthz': infoOperations(
        'Health',
        'Liveness: {"ok":true} while the process runs.',
        'No key is needed and none is checked. For a liveness probe.',
        healthResponses,
      ),
      '/readyz': infoOperations(
        'Readiness',
        'Readiness: {"ok":true} while storage and limiter answer.',
        'No key is needed. 503 when the store or the shared limiter does not answer: for a readiness probe or a load balancer.',
        readinessResponses,
      ),
      '/v1/openapi.json': infoOperations(
        'OpenApiDocument',
        'This document.',
        "No key is needed. The same on every server, whatever its settings: the limits are in each answer's RateLimit-Policy.",
        openApiResponses,
      ),
      ...connectPaths(),
    },
  };
}
