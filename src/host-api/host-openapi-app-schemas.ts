import { MAX_APP_NAME_LENGTH, MAX_APP_URL_LENGTH, MAX_REDIRECT_URIS } from '../domain/app-registration.js';
import { component, listOf } from '../openapi/answers.js';
import { instantSchema } from '../openapi/schemas.js';

/**
 * The JSON Schemas of the apps in the host API (docs/host-api.md#apps-connect): field for field
 * what host-app-resources.ts answers.
 */

const object = (properties: Readonly<Record<string, object>>, required = Object.keys(properties)) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

const appId = { type: 'string', pattern: '^app_[0-9A-Za-z]{16}$', description: 'The app id: its OAuth client_id.' };
const appName = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_APP_NAME_LENGTH,
  description: 'What the person is shown on the consent page.',
} as const;
const redirectUris = {
  type: 'array',
  minItems: 1,
  maxItems: MAX_REDIRECT_URIS,
  items: {
    type: 'string',
    maxLength: MAX_APP_URL_LENGTH,
    pattern:
      '^([Hh][Tt][Tt][Pp][Ss]://[^/?#]|[Hh][Tt][Tt][Pp]://(127\\.0\\.0\\.1|\\[::1\\]|[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt])(:[0-9]+)?([/?]|$))',
    description:
      'An https:// URL without a fragment, or http:// to 127.0.0.1, [::1] or localhost with any port (RFC 8252): matched character for character.',
  },
  description: 'Where the person may be sent back after the grant.',
} as const;
const homepageUrl = {
  type: ['string', 'null'],
  maxLength: MAX_APP_URL_LENGTH,
  pattern: '^[Hh][Tt][Tt][Pp][Ss]://',
  description: "The app's homepage, https://; null when none.",
} as const;
const clientSecret = {
  type: 'string',
  pattern: '^mxa_[0-9A-Za-z]{49}$',
  description: "The client secret: shown here once, stored only as a digest. Hand it to the app's developer now.",
};

/** `as const`, as every request body's schema: the handler's type is read from it (host-body-schema.ts). */
export const createAppRequestSchema = {
  type: 'object',
  properties: {
    name: { ...appName, description: 'What the person is shown on the consent page; trimmed.' },
    redirectUris,
    homepageUrl: { ...homepageUrl, description: "The app's homepage, https://; absent or null: none." },
  },
  required: ['name', 'redirectUris'],
  additionalProperties: false,
  description: 'A third-party app to register.',
} as const;

export const appSchema = object({ id: appId, name: appName, redirectUris, homepageUrl, createdAt: instantSchema });

export const createdAppSchema = {
  ...object({
    id: appId,
    name: appName,
    redirectUris,
    homepageUrl,
    createdAt: instantSchema,
    clientSecret,
  }),
  description: 'A new app, with its client secret.',
};

const yes = { type: 'boolean', enum: [true] };

const APP = component('App', appSchema);

/** The answers' components of apps, which their operations name. */
export const APP_COMPONENTS = {
  App: APP,
  AppList: listOf('AppList', APP),
  CreatedApp: component('CreatedApp', createdAppSchema),
  DeletedApp: component('DeletedApp', object({ id: appId, deleted: yes })),
  RotatedAppSecret: component('RotatedAppSecret', {
    ...object({ id: appId, clientSecret }),
    description: 'The new client secret; the previous one is refused from now on.',
  }),
};
