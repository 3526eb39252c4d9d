import { DURATION_PATTERN } from '../domain/duration.js';
import { MAX_ACTIVE_KEYS } from '../domain/key-request.js';
import { MAX_NEXT_LENGTH } from '../domain/page-path.js';
import { MAX_WEBHOOK_NAME_LENGTH, MAX_WEBHOOK_URL_LENGTH, MAX_WEBHOOKS_PER_USER } from '../domain/webhook-endpoint.js';
import { component, listOf } from '../openapi/answers.js';
import { instantSchema } from '../openapi/schemas.js';

/**
 * The JSON Schemas of a user's keys, webhook endpoints and sign-in links in the host API
 * (docs/host-api.md#keys-webhook-endpoints-and-sign-in-links): field for field what
 * host-key-resources.ts and host-webhook-resources.ts answer.
 */

const object = (properties: Readonly<Record<string, object>>, required = Object.keys(properties)) => ({
  type: 'object',
  properties,
  ...(required.length === 0 ? {} : { required }),
  additionalProperties: false,
});
const instantOrNull = (description: string) => ({ ...instantSchema, type: ['string', 'null'], description });
/** A required `true`: a one-value enum, as the public document writes `deleted`. */
const yes = { type: 'boolean', enum: [true] };

const keyId = { type: 'string', description: 'The key id (key_…): what DELETE /host/v1/keys/{keyId} takes.' };
const keyName = { type: 'string', description: 'The name given at creation; "" when none.' };
const expiresAt = instantOrNull('When the key stops working; null: never.');

/** `as const`, as every request body's schema: the handler's type is read from it (host-body-schema.ts). */
export const createKeyRequestSchema = {
  type: 'object',
  properties: {
    name: { type: ['string', 'null'], description: 'A label the user recognises; absent or null is "".' },
    expiresIn: {
      type: ['string', 'null'],
      // The rule of `keys create --expires-in`, from the code that reads it.
      pattern: DURATION_PATTERN,
      description: 'How long the key lives, such as 90s, 30m, 12h or 30d; absent or null: until revoked.',
    },
  },
  additionalProperties: false,
  description: 'Both fields optional; no body at all is the same as {}.',
} as const;

export const createdKeySchema = {
  ...object({
    id: keyId,
    key: {
      type: 'string',
      pattern: '^mxk_[0-9A-Za-z]{49}$',
      description: 'The API key: shown here once, stored only as a digest. Hand it to the user now.',
    },
    userId: { type: 'string', description: 'The user whose meals the key reads.' },
    name: keyName,
    createdAt: instantSchema,
    expiresAt,
  }),
  description: `A new key of the user, who may hold ${MAX_ACTIVE_KEYS} active keys.`,
};

export const keySummarySchema = object({
  id: keyId,
  name: keyName,
  prefix: { type: 'string', description: 'The first characters of the key, safe to show.' },
  createdAt: instantSchema,
  expiresAt,
  lastUsedAt: instantOrNull('About when the key was last accepted; null: never.'),
  revokedAt: instantOrNull('When the key was revoked; null: it was not.'),
  appId: {
    type: ['string', 'null'],
    description: 'The app the user granted the key to (app_…, Connect); null for a key made otherwise.',
  },
});

export const revokedKeySchema = object({ id: keyId, revoked: yes });

const webhookId = { type: 'string', description: 'The endpoint id (wh_…).' };
const webhookUrl = {
  type: 'string',
  maxLength: MAX_WEBHOOK_URL_LENGTH,
  pattern: '^[Hh][Tt][Tt][Pp][Ss]://',
  description: 'Where the calls go: https://, no user name or password, not a private or loopback address.',
} as const;
const webhookName = {
  type: 'string',
  maxLength: MAX_WEBHOOK_NAME_LENGTH,
  description: 'A label; "" when none.',
} as const;
const webhookSecret = {
  type: 'string',
  pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
  description: 'The signing secret (Standard Webhooks): shown here once. Keep it with the receiver.',
};

export const createWebhookRequestSchema = {
  type: 'object',
  properties: {
    url: webhookUrl,
    name: { ...webhookName, type: ['string', 'null'], description: 'A label; absent or null is "".' },
  },
  required: ['url'],
  additionalProperties: false,
} as const;

export const createdWebhookSchema = {
  ...object({
    id: webhookId,
    userId: { type: 'string' },
    url: webhookUrl,
    name: webhookName,
    secret: webhookSecret,
    createdAt: instantSchema,
  }),
  description: `A new endpoint of the user, who may have ${MAX_WEBHOOKS_PER_USER}.`,
};

export const webhookSummarySchema = object({
  id: webhookId,
  url: webhookUrl,
  name: webhookName,
  status: {
    type: 'string',
    enum: ['enabled', 'disabled'],
    description: 'disabled after its retries ran out or a 410; enable it again with POST …/enable.',
  },
  createdAt: instantSchema,
  lastAttemptAt: instantOrNull('When the last call started; null: none was made.'),
  lastStatus: {
    type: ['integer', 'null'],
    description: 'The HTTP status of the last call; null when it had none (refused, timeout) or none was made.',
  },
});

export const deletedWebhookSchema = object({ id: webhookId, deleted: yes });
export const enabledWebhookSchema = object({ id: webhookId, enabled: yes });
export const rotatedSecretSchema = {
  ...object({ id: webhookId, secret: webhookSecret }),
  description: 'The new secret; the previous one signs beside it for 24 hours.',
};

const eventId = {
  type: 'string',
  pattern: '^msg_[0-9a-f]{32}$',
  description: 'The event id: the webhook-id header of its calls.',
};

export const queuedTestSchema = {
  ...object({ id: webhookId, eventId }),
  description: 'A webhook.test call, queued: it is sent within seconds, and shows among the attempts.',
};

export const webhookAttemptSchema = object({
  at: { ...instantSchema, description: 'When the call started.' },
  eventId,
  status: { type: ['integer', 'null'], description: 'The HTTP status answered; null when none was.' },
  error: {
    type: ['string', 'null'],
    description: 'Why no status: refused_address, timeout, tls, connection or dns; null when one was answered.',
  },
  ms: { type: 'integer', minimum: 0, description: 'How long the call took.' },
});

export const loginLinkRequestSchema = {
  type: 'object',
  properties: {
    next: {
      type: 'string',
      maxLength: MAX_NEXT_LENGTH,
      pattern: '^/(?![/\\\\])',
      description:
        'Where the link lands once the person is signed in: a path of the app page, such as a Connect authorization request (/oauth/authorize?…). Never another site.',
    },
  },
  additionalProperties: false,
  description: 'Optional: `next`. Send no body, or {}, to land on the page itself.',
} as const;

export const loginLinkSchema = object({
  url: {
    type: 'string',
    pattern: '^https?://',
    description: "The app page's sign-in address with a one-time token: send the user there.",
  },
  expiresAt: { ...instantSchema, description: 'The link works once, until then (15 minutes).' },
});

const erasedCount = (what: string) => ({ type: 'integer', minimum: 0, description: what });

export const erasedUserSchema = object({
  userId: { type: 'string', description: 'The user erased.' },
  erased: object({
    meals: erasedCount('Meals there were, live ones and tombstones.'),
    keys: erasedCount('API keys there were, revoked and expired ones and those of connected apps included.'),
    webhooks: erasedCount('Webhook endpoints there were; each enabled one gets one last user.erased call.'),
  }),
});

const KEY_SUMMARY = component('KeySummary', keySummarySchema);
const WEBHOOK_SUMMARY = component('WebhookSummary', webhookSummarySchema);
const WEBHOOK_ATTEMPT = component('WebhookAttempt', webhookAttemptSchema);

/** The answers' components of keys, webhook endpoints, sign-in links and users, which their operations name. */
export const ACCOUNT = {
  CreatedKey: component('CreatedKey', createdKeySchema),
  KeyList: listOf('KeyList', KEY_SUMMARY),
  RevokedKey: component('RevokedKey', revokedKeySchema),
  CreatedWebhook: component('CreatedWebhook', createdWebhookSchema),
  WebhookList: listOf('WebhookList', WEBHOOK_SUMMARY),
  DeletedWebhook: component('DeletedWebhook', deletedWebhookSchema),
  EnabledWebhook: component('EnabledWebhook', enabledWebhookSchema),
  RotatedSecret: component('RotatedSecret', rotatedSecretSchema),
  QueuedTest: component('QueuedTest', queuedTestSchema),
  WebhookAttemptList: listOf('WebhookAttemptList', WEBHOOK_ATTEMPT),
  LoginLink: component('LoginLink', loginLinkSchema),
  ErasedUser: component('ErasedUser', erasedUserSchema),
};
