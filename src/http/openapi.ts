import type { RateLimitPolicy } from '../ratelimit/rate-limiter.js';
import { rateLimitPolicyHeader } from './rate-limit-headers.js';
import {
  errorSchema,
  liveMealWithDeletedSchema,
  mealPageSchema,
  mealSchema,
  mealsQueryParameters,
  tombstoneSchema,
} from './schemas.js';

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
