import {
  errorSchema,
  liveMealSchema,
  liveMealWithDeletedSchema,
  mealPageSchema,
  mealSchema,
  mealsChangedEventSchema,
  mealsQueryParameters,
  tombstoneSchema,
  webhookTestEventSchema,
} from './schemas.js';

/** The Standard Webhooks headers of every call (CONTRACT.md section 8). */
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

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/**
 * The rate-limit headers of every answer to an accepted key (CONTRACT.md section 4). The limits
 * are the server's settings (`serve --min-interval-ms`, `--daily-limit`): they are read from
 * RateLimit-Policy, never written in this document, which is the same on every server.
 */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    description:
      'This server\'s limits per key (draft-ietf-httpapi-ratelimit-headers): "daily";q=<requests>;w=86400, then, when there is a least interval between two requests, "interval";q=1;w=<seconds>. The defaults are "daily";q=1000;w=86400, "interval";q=1;w=3.',
    schema: { type: 'string', pattern: '^"daily";q=[0-9]+;w=86400(, "interval";q=1;w=[0-9]+)?$' },
  },
  RateLimit: {
    description: 'What is left of the daily quota: "daily";r=<remaining>;t=<seconds until 00:00 UTC>.',
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': { description: 'The daily quota.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'What is left of it today.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix seconds of the next 00:00 UTC.', schema: { type: 'integer' } },
};

const RETRY_AFTER = { description: 'Whole seconds to wait.', schema: { type: 'integer', minimum: 1 } };

/** The answers of GET /v1/meals; HEAD's are the same without a body (`content` left out). */
function mealsResponses(withBody: boolean) {
  const answer = (description: string, schema: string | undefined, headers: object = {}) => ({
    description,
    headers,
    ...(withBody && schema !== undefined
      ? { content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } }
      : {}),
  });
  return {
    '200': answer('A page of meals.', 'MealPage', RATE_LIMIT_HEADERS),
    '400': answer(
      'missing_parameter, invalid_parameter or bad_request; error.param names the parameter.',
      'Error',
      RATE_LIMIT_HEADERS,
    ),
    '401': answer('missing_api_key or invalid_api_key.', 'Error'),
    '403': answer('browser_forbidden: an Origin header or OPTIONS.', 'Error'),
    '410': answer(
      'resync_required: with includeDeleted=true, a tombstone the store has pruned belongs in the answer: the starting point (the later of lastModifiedSince, inclusive, and the cursor, exclusive) is at or before the newest tombstone pruned for this user. Sync again from the beginning without includeDeleted, then follow the changes. A user with no pruned tombstone never gets it.',
      'Error',
      RATE_LIMIT_HEADERS,
    ),
    '429': answer('rate_limited: see Retry-After and RateLimit-Policy.', 'Error', {
      ...RATE_LIMIT_HEADERS,
      'Retry-After': RETRY_AFTER,
    }),
    '503': answer('unavailable: storage unreachable; see Retry-After.', 'Error', { 'Retry-After': RETRY_AFTER }),
  };
}

const MEALS_DESCRIPTION =
  "Rate limits per key: a least interval between two requests and a daily quota (reset at midnight UTC), both this server's settings, given on every answer to an accepted key in the RateLimit-Policy header. A request over them is refused with rate_limited and Retry-After.";

/** The OpenAPI 3.1 document of the public API, built once at start-up from the schemas. */
export function buildOpenApiDocument(version: string): object {
  return {
    openapi: '3.1.0',
    info: {
      title: 'meal-export',
      version,
      description:
        'Read-only incremental sync of the meals a user recorded in the app. Every request carries Authorization: Bearer <API key>.',
    },
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'mxk_… key from the app.' } },
      schemas: {
        Meal: mealSchema,
        LiveMeal: liveMealSchema,
        LiveMealWithDeleted: liveMealWithDeletedSchema,
        Tombstone: tombstoneSchema,
        MealPage: mealPageSchema,
        Error: errorSchema,
        MealsChangedEvent: mealsChangedEventSchema,
        WebhookTestEvent: webhookTestEventSchema,
      },
    },
    webhooks: {
      mealsChanged: {
        post: {
          operationId: 'mealsChanged',
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
                  ],
                },
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
        get: {
          operationId: 'listMeals',
          summary: 'The meals modified since an instant, in (modifiedAt, id) order, paged by cursor.',
          description: MEALS_DESCRIPTION,
          parameters: mealsQueryParameters,
          responses: mealsResponses(true),
        },
        head: {
          operationId: 'headMeals',
          summary: 'GET /v1/meals without the body: the same status and headers, counted against the limits alike.',
          description: `${MEALS_DESCRIPTION} With wait, it is held as a GET is.`,
          parameters: mealsQueryParameters,
          responses: mealsResponses(false),
        },
      },
      '/healthz': {
        get: { security: [], summary: 'Liveness: {"ok":true}.', responses: { '200': { description: 'Alive.' } } },
      },
      '/readyz': {
        get: {
          security: [],
          summary: 'Readiness: storage and limiter answer.',
          responses: { '200': { description: 'Ready.' }, '503': errorResponse('Not ready.') },
        },
      },
      '/v1/openapi.json': {
        get: { security: [], summary: 'This document.', responses: { '200': { description: 'OpenAPI 3.1.' } } },
      },
    },
  };
}
