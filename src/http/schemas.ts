import { PUBLIC_STATUS_BY_CODE } from '../errors.js';
import { errorSchemaOf, instantSchema } from '../openapi/schemas.js';
import { MEALS_QUERY_PARAMETERS, MEALS_QUERY_RULES } from './meals-query-rules.js';

/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses) of what /v1/meals and the webhook calls send, and
 * of the query /v1/meals takes; the Meal itself is in openapi/schemas.ts, which the host API's
 * document gives too. The tests check real responses against these schemas.
 */
export const mealPageSchema = {
  type: 'object',
  properties: {
    ok: { const: true },
    userId: { type: 'string' },
    lastModifiedSince: { ...instantSchema, description: 'The requested instant, normalised.' },
    count: { type: 'integer', minimum: 0, description: 'meals.length' },
    meals: {
      type: 'array',
      items: {
        anyOf: [{ $ref: '#/components/schemas/LiveMeal' }, { $ref: '#/components/schemas/Tombstone' }],
      },
    },
    hasMore: { type: 'boolean', description: 'More meals match after this page: call again with cursor=nextCursor.' },
    nextCursor: { type: ['string', 'null'], description: 'The position after the last meal; null when count is 0.' },
  },
  required: ['ok', 'userId', 'lastModifiedSince', 'count', 'meals', 'hasMore', 'nextCursor'],
  additionalProperties: false,
} as const;

export const errorSchema = errorSchemaOf(Object.keys(PUBLIC_STATUS_BY_CODE), 'The query parameter at fault.');

/**
 * The query parameters of GET /v1/meals, in the order the first one at fault is named: from the
 * rules the parser reads them by (meals-query-rules.ts), so the document cannot say otherwise.
 */
export const mealsQueryParameters = MEALS_QUERY_PARAMETERS.map((name) => {
  const rule = MEALS_QUERY_RULES[name];
  return {
    name,
    in: 'query',
    required: 'missing' in rule.absent,
    description: rule.description,
    schema: rule.schema,
  };
});

/** A webhook call's body (docs/webhooks.md#the-call): "your meals changed, from … through …". */
export const mealsChangedEventSchema = {
  type: 'object',
  properties: {
    type: { const: 'meals.changed' },
    timestamp: { ...instantSchema, description: 'When the event was made: the same on every retry.' },
    data: {
      type: 'object',
      properties: {
        userId: { type: 'string' },
        from: {
          ...instantSchema,
          description: 'modifiedAt of the oldest change the event covers (deletions included).',
        },
        through: { ...instantSchema, description: 'modifiedAt of the newest change the event covers.' },
      },
      required: ['userId', 'from', 'through'],
      additionalProperties: false,
    },
  },
  required: ['type', 'timestamp', 'data'],
  additionalProperties: false,
} as const;

/** The body of a test call (`webhooks test`, the app page's button). */
export const webhookTestEventSchema = {
  type: 'object',
  properties: {
    type: { const: 'webhook.test' },
    timestamp: instantSchema,
    data: {
      type: 'object',
      properties: { userId: { type: 'string' } },
      required: ['userId'],
      additionalProperties: false,
    },
  },
  required: ['type', 'timestamp', 'data'],
  additionalProperties: false,
} as const;

/** The last call to an erased user's endpoint (docs/webhooks.md#when-a-user-is-erased): delete your copy. */
export const userErasedEventSchema = {
  ...webhookTestEventSchema,
  properties: { ...webhookTestEventSchema.properties, type: { const: 'user.erased' } },
} as const;
