import { MAX_ACTIVE_KEYS } from '../domain/key-request.js';
import { retryAfterHeader, UNAVAILABLE_RETRY_AFTER } from '../http/openapi-headers.js';
import { error, errorExample } from '../http/openapi-responses.js';
import { LOGIN_LINK_TTL_MS } from '../web/login-link.js';
import {
  invalidRecord,
  jsonBody,
  jsonTooLarge,
  operationOf,
  pathItem,
  success,
  USER_BODY_REFUSAL,
} from './host-openapi-answers.js';
import { userCollectionPaths } from './host-openapi-collection.js';
import { USER_ID_PARAMETER } from './host-openapi-schemas.js';

/**
 * A user's API keys and sign-in links in the host API's document
 * (docs/host-api.md#keys-webhook-endpoints-and-sign-in-links): what the app's back end does for
 * a user who never sees meal-export itself.
 */

const KEY = {
  id: 'key_7Qm2xV9cLp4RtY3s',
  name: 'diary app',
  createdAt: '2026-11-01T08:00:00.000Z',
  expiresAt: '2026-12-01T08:00:00.000Z',
};

const KEY_COLLECTION = userCollectionPaths({
  tag: 'Keys',
  path: '/host/v1/users/{userId}/keys',
  description: "The user's API keys.",
  create: {
    operationId: 'createKey',
    summary: "Makes an API key for the user: their meals, read through the public listener's /v1/meals.",
    description: `The key is in this answer only: hand it to the user at once. A user holds at most ${MAX_ACTIVE_KEYS} active keys; to rotate one, make the new key, then revoke the old.`,
    requestBody: jsonBody('CreateKeyRequest', false, {
      named: { summary: 'A name and a lifetime', value: { name: 'diary app', expiresIn: '30d' } },
      none: { summary: 'No name, no expiry', value: {} },
    }),
    created: success('The new key.', 'CreatedKey', {
      created: {
        summary: 'A key for 30 days',
        value: {
          id: KEY.id,
          key: `mxk_${'4Fq9'.repeat(12)}x`,
          userId: 'u_42',
          name: KEY.name,
          createdAt: KEY.createdAt,
          expiresAt: KEY.expiresAt,
        },
      },
    }),
    tooMany: error(
      `too_many_keys: the user holds ${MAX_ACTIVE_KEYS} active keys already. Revoke one first.`,
      {},
      errorExample('too_many_keys', `The user already has ${MAX_ACTIVE_KEYS} active keys: revoke one first.`),
    ),
    invalid: invalidRecord(
      'the body is not a JSON object, has another field than name and expiresIn, or one of them is wrong.',
      errorExample('invalid_record', 'expiresIn must look like 90s, 30m, 12h or 30d.', 'expiresIn', 'bad_expiresIn'),
      errorExample('invalid_record', 'Unknown field "scope".', 'scope', 'unknown_field'),
    ),
  },
  list: {
    operationId: 'listKeys',
    headId: 'headKeys',
    summary: "The user's API keys, revoked and expired ones included: never a key itself.",
    description: "Oldest first. A user with no key has an empty list (no 404: user ids are the app's).",
    listed: success("The user's keys.", 'KeyList', {
      keys: {
        summary: 'One key, used',
        value: [{ ...KEY, prefix: 'mxk_4Fq94Fq9', lastUsedAt: '2026-11-20T06:12:00.000Z', revokedAt: null }],
      },
      none: { summary: 'No key', value: [] },
    }),
  },
  memberId: { name: 'keyId', description: 'A key id (key_…) from creating or listing keys.', example: KEY.id },
  memberNoun: 'key',
  unknownMember: 'no key has this id.',
  memberPaths: {
    '/host/v1/keys/{keyId}': {
      description: 'One API key.',
      method: 'delete',
      operation: {
        operationId: 'revokeKey',
        summary: 'Revokes an API key: it is refused from now on.',
        description: 'Revoking a revoked key again answers the same. The key stays in the list, with its revokedAt.',
      },
      done: success('The key is revoked.', 'RevokedKey', {
        revoked: { summary: 'Revoked', value: { id: KEY.id, revoked: true } },
      }),
    },
  },
});

const LINK_MINUTES = LOGIN_LINK_TTL_MS / 60_000;

const createLoginLink = operationOf({
  operationId: 'createLoginLink',
  tags: ['Sign-in links'],
  summary: 'A one-time link that signs the user in to the app page, where they manage their keys and webhooks.',
  description: `Send the user to the URL within ${LINK_MINUTES} minutes; it works once. Its address is serve's --public-url, else the app page's own when serve runs with --app-port.`,
  requestBody: jsonBody('LoginLinkRequest', false, { none: { summary: 'No field', value: {} } }),
  answers: {
    '201': success('The link.', 'LoginLink', {
      link: {
        summary: 'A link',
        value: {
          url: 'https://meals.diet.example/login?token=Hq3vN8xKpL2mR7tY9wZ4bC6dF1gJ5sA0eU8iO3nV2kM',
          expiresAt: '2026-11-25T10:15:00.000Z',
        },
      },
    }),
    '400': USER_BODY_REFUSAL,
    '413': jsonTooLarge,
    '422': invalidRecord(
      'the body has a field, or is not a JSON object.',
      errorExample('invalid_record', 'Unknown field "ttl".', 'ttl'),
    ),
    '503': error(
      'unavailable: no app page address is known (serve runs with neither --app-port nor --public-url), or storage does not answer; try again after Retry-After.',
      retryAfterHeader(UNAVAILABLE_RETRY_AFTER),
      errorExample(
        'unavailable',
        'No app page address is known: start serve with --app-port or --public-url.',
        undefined,
        'no_app_page',
      ),
      errorExample('unavailable', 'Storage is unavailable.'),
    ),
  },
});

/** The paths of keys and sign-in links, each with what another method gets. */
export const KEY_PATHS = {
  ...KEY_COLLECTION,
  '/host/v1/users/{userId}/login-links': pathItem('Sign-in links to the app page.', { post: createLoginLink }, [
    USER_ID_PARAMETER,
  ]),
};
