import { parseDuration } from '../domain/duration.js';
import { MAX_ACTIVE_KEYS } from '../domain/key-request.js';
import { pagePathFault } from '../domain/page-path.js';
import { AppError } from '../errors.js';
import { createdKeyView, keyListView, loginLinkView, revokedView } from '../meal-host/host-records.js';
import { retryAfterHeader, UNAVAILABLE_RETRY_AFTER } from '../openapi/headers.js';
import { error, errorExample } from '../openapi/answers.js';
import { issueApiKey } from '../keys/issue-api-key.js';
import { LOGIN_LINK_TTL_MS, mintLoginLink } from '../web/login-link.js';
import { objectBody } from './host-body-schema.js';
import { unknownId } from './host-api-errors.js';
import { ACCOUNT, createKeyRequestSchema, loginLinkRequestSchema } from './host-openapi-account-schemas.js';
import { invalidRecord, notFound, success } from './host-openapi-answers.js';
import { storeIdParameter, USER_ID } from './host-paths.js';
import { hostResource } from './host-route-table.js';

/**
 * A user's API keys and sign-in links (docs/host-api.md#keys-webhook-endpoints-and-sign-in-links):
 * what the app's back end does for a user who never sees meal-export itself.
 */

const TAG = 'Keys';

const KEY = {
  id: 'key_7Qm2xV9cLp4RtY3s',
  name: 'diary app',
  createdAt: '2026-11-01T08:00:00.000Z',
  expiresAt: '2026-12-01T08:00:00.000Z',
};

const TOO_MANY_KEYS = `The user already has ${MAX_ACTIVE_KEYS} active keys: revoke one first.`;
const BAD_LIFETIME = 'expiresIn must look like 90s, 30m, 12h or 30d.';

const CREATE_KEY_BODY = objectBody({
  component: 'CreateKeyRequest',
  schema: createKeyRequestSchema,
  required: false,
  examples: {
    named: { summary: 'A name and a lifetime', value: { name: 'diary app', expiresIn: '30d' } },
    none: { summary: 'No name, no expiry', value: {} },
  },
  faults: { expiresIn: () => BAD_LIFETIME },
});

export const KEYS_RESOURCE = hostResource({
  path: '/host/v1/users/{userId}/keys',
  tag: TAG,
  description: "The user's API keys.",
  parameters: [USER_ID],
  operations: {
    POST: {
      operationId: 'createKey',
      summary: "Makes an API key for the user: their meals, read through the public listener's /v1/meals.",
      description: `The key is in this answer only: hand it to the user at once. A user holds at most ${MAX_ACTIVE_KEYS} active keys; to rotate one, make the new key, then revoke the old.`,
      body: CREATE_KEY_BODY,
      answers: {
        '201': success('The new key.', ACCOUNT.CreatedKey, {
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
        '409': error(
          `too_many_keys: the user holds ${MAX_ACTIVE_KEYS} active keys already. Revoke one first.`,
          {},
          errorExample('too_many_keys', TOO_MANY_KEYS),
        ),
        '422': invalidRecord(
          'the body is not a JSON object, has another field than name and expiresIn, or one of them is wrong.',
          errorExample('invalid_record', BAD_LIFETIME, 'expiresIn', 'bad_expiresIn'),
          errorExample('invalid_record', 'Unknown field "scope".', 'scope', 'unknown_field'),
        ),
      },
      async handle(call, { storage }) {
        const { name, expiresIn } = call.bodyOf(CREATE_KEY_BODY);
        // The schema took expiresIn by the pattern parseDuration reads.
        const lifetimeMs = expiresIn === undefined || expiresIn === null ? undefined : parseDuration(expiresIn);
        const key = { userId: call.id('userId'), name: name ?? '', lifetimeMs };
        const issued = await issueApiKey(storage.keys, key, Date.now());
        if (!issued.ok) throw new AppError('too_many_keys', TOO_MANY_KEYS);
        return { body: createdKeyView(issued.key, issued.record) };
      },
    },
    GET: {
      operationId: 'listKeys',
      headId: 'headKeys',
      summary: "The user's API keys, revoked and expired ones included: never a key itself.",
      description: "Oldest first. A user with no key has an empty list (no 404: user ids are the app's).",
      answers: {
        '200': success("The user's keys.", ACCOUNT.KeyList, {
          keys: {
            summary: 'One key, used',
            value: [
              {
                ...KEY,
                prefix: 'mxk_4Fq94Fq9',
                lastUsedAt: '2026-11-20T06:12:00.000Z',
                revokedAt: null,
                appId: null,
              },
            ],
          },
          none: { summary: 'No key', value: [] },
        }),
      },
      async handle(call, { storage }) {
        return { body: (await storage.keys.listApiKeys(call.id('userId'))).map(keyListView) };
      },
    },
  },
});

export const KEY_RESOURCE = hostResource({
  path: '/host/v1/keys/{keyId}',
  tag: TAG,
  description: 'One API key.',
  parameters: [storeIdParameter('keyId', 'A key id (key_…) from creating or listing keys.', KEY.id)],
  operations: {
    DELETE: {
      operationId: 'revokeKey',
      summary: 'Revokes an API key: it is refused from now on.',
      description: 'Revoking a revoked key again answers the same. The key stays in the list, with its revokedAt.',
      answers: {
        '200': success('The key is revoked.', ACCOUNT.RevokedKey, {
          revoked: { summary: 'Revoked', value: { id: KEY.id, revoked: true } },
        }),
        '404': notFound('key', 'no key has this id.'),
      },
      async handle(call, { storage }) {
        const record = await storage.keys.revokeApiKey(call.id('keyId'), Date.now());
        if (record === undefined) throw unknownId('key');
        return { body: revokedView(record.id) };
      },
    },
  },
});

const LINK_MINUTES = LOGIN_LINK_TTL_MS / 60_000;
const NO_APP_PAGE = 'No app page address is known: start serve with --app-port or --public-url.';

const LOGIN_LINK_BODY = objectBody({
  component: 'LoginLinkRequest',
  schema: loginLinkRequestSchema,
  required: false,
  examples: {
    none: { summary: 'No field: the link lands on the page', value: {} },
    next: {
      summary: 'Back to a Connect request once signed in',
      value: { next: '/oauth/authorize?response_type=code&client_id=app_7Qm2xV9cLp4RtY3s&state=…' },
    },
  },
  faults: { next: pagePathFault },
});

export const LOGIN_LINKS_RESOURCE = hostResource({
  path: '/host/v1/users/{userId}/login-links',
  tag: 'Sign-in links',
  description: 'Sign-in links to the app page.',
  parameters: [USER_ID],
  operations: {
    POST: {
      operationId: 'createLoginLink',
      summary: 'A one-time link that signs the user in to the app page, where they manage their keys and webhooks.',
      description: `Send the user to the URL within ${LINK_MINUTES} minutes; it works once. Its address is serve's --public-url, else the app page's own when serve runs with --app-port.`,
      body: LOGIN_LINK_BODY,
      answers: {
        '201': success('The link.', ACCOUNT.LoginLink, {
          link: {
            summary: 'A link',
            value: {
              url: 'https://meals.diet.example/login?token=Hq3vN8xKpL2mR7tY9wZ4bC6dF1gJ5sA0eU8iO3nV2kM',
              expiresAt: '2026-11-25T10:15:00.000Z',
            },
          },
        }),
        '422': invalidRecord(
          'the body has another field than next, next is not a path of the page, or the body is not a JSON object.',
          errorExample('invalid_record', 'Unknown field "ttl".', 'ttl'),
          errorExample('invalid_record', pagePathFault('//elsewhere.example') ?? '', 'next', 'next elsewhere'),
        ),
        '503': error(
          'unavailable: no app page address is known (serve runs with neither --app-port nor --public-url), or storage does not answer; try again after Retry-After.',
          retryAfterHeader(UNAVAILABLE_RETRY_AFTER),
          errorExample('unavailable', NO_APP_PAGE, undefined, 'no_app_page'),
          errorExample('unavailable', 'Storage is unavailable.'),
        ),
      },
      async handle(call, deps) {
        const origin = deps.publicUrl ?? (await deps.storage.settings.appPageOrigin());
        if (origin === undefined) throw new AppError('unavailable', NO_APP_PAGE);
        const { next } = call.bodyOf(LOGIN_LINK_BODY);
        // The schema holds what a JSON Schema can say of a page's path; the rest is the domain's.
        const fault = next === undefined ? undefined : pagePathFault(next);
        if (fault !== undefined) throw new AppError('invalid_record', fault, { param: 'next' });
        const link = await mintLoginLink(deps.storage, call.id('userId'), origin, Date.now(), next);
        return { body: loginLinkView(link) };
      },
    },
  },
});
