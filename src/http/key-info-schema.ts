import { instantSchema } from '../openapi/schemas.js';

/**
 * The JSON Schema of GET /v1/key's body (docs/api.md#your-key-and-its-limits), field for field
 * domain/key-info.ts's KeyInfo, in its order; the tests check real answers against it.
 */
export const keyInfoSchema = {
  type: 'object',
  properties: {
    ok: { const: true },
    key: {
      type: 'object',
      description: 'The key, as keys list shows it (never the key itself).',
      properties: {
        id: { type: 'string', description: 'The key id (key_…): what keys revoke takes.' },
        name: { type: 'string', description: 'The name given at creation; "" when none.' },
        prefix: { type: 'string', description: 'The first characters of the key, safe to show.' },
        userId: { type: 'string', description: 'The user whose meals the key reads.' },
        createdAt: instantSchema,
        expiresAt: {
          ...instantSchema,
          type: ['string', 'null'],
          description: 'When the key stops working; null: never.',
        },
      },
      required: ['id', 'name', 'prefix', 'userId', 'createdAt', 'expiresAt'],
      additionalProperties: false,
    },
    limits: {
      type: 'object',
      description: 'Where the key stands against its limits, as of this answer; this request counted nothing.',
      properties: {
        daily: { type: 'integer', minimum: 0, description: 'Accepted requests allowed per UTC day.' },
        usedToday: { type: 'integer', minimum: 0, description: 'Accepted requests today.' },
        remainingToday: { type: 'integer', minimum: 0, description: 'daily - usedToday.' },
        resetsAt: { ...instantSchema, description: 'The next 00:00:00Z, when the daily count starts over.' },
        minIntervalMs: { type: 'integer', minimum: 0, description: 'The least time between two accepted requests.' },
        nextAcceptedAt: {
          ...instantSchema,
          description:
            "When the key's next /v1/meals request will be accepted: this answer's own time when now, else the end of the interval, or resetsAt when today's quota is used up.",
        },
      },
      required: ['daily', 'usedToday', 'remainingToday', 'resetsAt', 'minIntervalMs', 'nextAcceptedAt'],
      additionalProperties: false,
    },
  },
  required: ['ok', 'key', 'limits'],
  additionalProperties: false,
} as const;
