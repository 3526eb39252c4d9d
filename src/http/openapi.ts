import type { RateLimitPolicy } from '../ratelimit/rate-limiter.js';
import { rateLimitPolicyHeader } from './rate-limit-headers.js';
import {
  errorSchema,
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

/** The OpenAPI 3.1 document of the public API, built once at start-up from the schemas. */
export function buildOpenApiDocument(policy: RateLimitPolicy, version: string): object {
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
          description: `Rate limits per key: ${rateLimitPolicyHeader(policy)} (RateLimit-Policy).`,
          parameters: mealsQueryParameters,
          responses: {
            '200': {
              description: 'A page of meals.',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/MealPage' } } },
            },
            '400': errorResponse(
              'missing_parameter, invalid_parameter or bad_request; error.param names the parameter.',
            ),
            '401': errorResponse('missing_api_key or invalid_api_key.'),
            '403': errorResponse('browser_forbidden: an Origin header or OPTIONS.'),
            '410': errorResponse(
              'resync_required: with includeDeleted=true, a tombstone the store has pruned belongs in the answer: the starting point (the later of lastModifiedSince, inclusive, and the cursor, exclusive) is at or before the newest tombstone pruned for this user. Sync again from the beginning without includeDeleted, then follow the changes. A user with no pruned tombstone never gets it.',
            ),
            '429': errorResponse('rate_limited: see Retry-After.'),
            '503': errorResponse('unavailable: storage unreachable; see Retry-After.'),
          },
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
