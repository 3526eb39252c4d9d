import { MEALS_READ_SCOPE } from '../domain/oauth-authorization.js';
import { notFoundMessage, PUBLIC_API_WHERE } from '../listener/not-found.js';
import { COMMON_HEADERS } from '../openapi/headers.js';
import { error, errorExample, responsesOf } from '../openapi/answers.js';
import { OAUTH_METADATA_PATH, OAUTH_REVOKE_PATH, OAUTH_TOKEN_PATH } from './public-routes.js';

/**
 * Connect's part of the public document (docs/connect.md): the token and revocation endpoints
 * (forms in, RFC 6749's JSON out, authenticated as the app rather than with a key) and the
 * RFC 8414 metadata. The authorization endpoint is the app page's, a page for people.
 */
const text = (description: string, extra: object = {}) => ({ type: 'string', description, ...extra });

const NO_STORE = {
  'Cache-Control': {
    description: 'A token or its refusal is never stored (RFC 6749 section 5.1).',
    required: true,
    schema: { type: 'string', const: 'no-store' },
    example: 'no-store',
  },
  Pragma: {
    description: 'As Cache-Control, for HTTP/1.0 caches.',
    required: true,
    schema: { type: 'string', const: 'no-cache' },
  },
};

const CLIENT_FIELDS = {
  client_id: text('The app id (app_…), with client_secret_post; with HTTP Basic, absent or the same.'),
  client_secret: text('The client secret (mxa_…), with client_secret_post only: never beside HTTP Basic.'),
};

export const CONNECT_SCHEMAS = {
  TokenRequest: {
    type: 'object',
    description: 'RFC 6749 section 4.1.3, as application/x-www-form-urlencoded.',
    properties: {
      grant_type: { const: 'authorization_code' },
      code: text('The code the person came back with: once, within 60 s.'),
      redirect_uri: text('The redirect_uri of the authorization request, character for character.'),
      code_verifier: text('The PKCE verifier whose S256 challenge the request sent.', {
        minLength: 43,
        maxLength: 128,
      }),
      ...CLIENT_FIELDS,
    },
    required: ['grant_type', 'code', 'redirect_uri', 'code_verifier'],
  },
  Token: {
    type: 'object',
    description: "An ordinary API key of the person's, named after the app, with no expiry and no refresh token.",
    properties: {
      access_token: text('The key (mxk_…): Authorization: Bearer on /v1/meals.', { pattern: '^mxk_' }),
      token_type: { const: 'Bearer' },
      scope: { const: MEALS_READ_SCOPE },
      key_id: text('The key id (key_…), as GET /v1/key and keys list show it.'),
      user_id: text('The person the key reads the meals of.'),
    },
    required: ['access_token', 'token_type', 'scope', 'key_id', 'user_id'],
    additionalProperties: false,
  },
  RevocationRequest: {
    type: 'object',
    description: 'RFC 7009, as application/x-www-form-urlencoded.',
    properties: { token: text('A key the app obtained (mxk_…).'), token_type_hint: text('Ignored.'), ...CLIENT_FIELDS },
    required: ['token'],
  },
  OAuthError: {
    type: 'object',
    description: "RFC 6749 section 5.2's error, not the API's own shape.",
    properties: {
      error: {
        enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unsupported_grant_type', 'rate_limited'],
      },
      error_description: text('What was wrong, for the developer.'),
    },
    required: ['error', 'error_description'],
    additionalProperties: false,
  },
  AuthorizationServerMetadata: {
    type: 'object',
    description: 'RFC 8414 metadata: the issuer, the endpoints and what they support.',
    properties: {
      issuer: text('The API as third parties reach it (serve --api-public-url).'),
      authorization_endpoint: text("The app page's /oauth/authorize."),
      token_endpoint: text('/oauth/token under the issuer.'),
      revocation_endpoint: text('/oauth/revoke under the issuer.'),
    },
    required: ['issuer', 'authorization_endpoint', 'token_endpoint', 'revocation_endpoint'],
  },
};

const json = (schema: string, example: object) => ({
  'application/json': { schema: { $ref: `#/components/schemas/${schema}` }, example },
});

const oauthError = (description: string, error: string, extraHeaders: object = {}) => ({
  description,
  headers: { ...COMMON_HEADERS, ...NO_STORE, ...extraHeaders },
  content: json('OAuthError', { error, error_description: 'What was wrong.' }),
});

const CLIENT_ERRORS = {
  '401': oauthError('invalid_client: no client authentication, an unknown app or a wrong secret.', 'invalid_client', {
    'WWW-Authenticate': {
      description: 'HTTP Basic, for the app to authenticate.',
      required: true,
      schema: { type: 'string', const: 'Basic realm="meal-export"' },
    },
  }),
  '429': oauthError('rate_limited: too many failed client authentications from this address.', 'rate_limited', {
    'Retry-After': { description: 'Seconds to wait.', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
  }),
};

const form = (schema: string) => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema: { $ref: `#/components/schemas/${schema}` } } },
});

const CLIENT_SECURITY = [{ clientSecretBasic: [] }, {}];

export const CONNECT_SECURITY_SCHEMES = {
  clientSecretBasic: {
    type: 'http',
    scheme: 'basic',
    description: "The app's id and client secret (client_secret_basic); or client_id and client_secret in the form.",
  },
};

export function connectPaths(): Record<string, object> {
  return {
    [OAUTH_TOKEN_PATH]: {
      post: {
        operationId: 'exchangeCode',
        tags: ['Connect'],
        summary: 'Exchanges a code the person granted for a key of theirs (docs/connect.md#the-grant).',
        description:
          'client_secret_basic or client_secret_post, never both. The code works once, within 60 s, for its app, redirect URI and PKCE challenge; presented a second time it is refused and the key it gave is revoked. A person holds one key per app: this revokes the earlier.',
        security: CLIENT_SECURITY,
        requestBody: form('TokenRequest'),
        responses: {
          '200': {
            description: 'The key.',
            headers: { ...COMMON_HEADERS, ...NO_STORE },
            content: json('Token', {
              access_token: `mxk_${'4Fq9'.repeat(12)}x`,
              token_type: 'Bearer',
              scope: MEALS_READ_SCOPE,
              key_id: 'key_7Qm2xV9cLp4RtY3s',
              user_id: 'u_42',
            }),
          },
          '400': oauthError(
            'invalid_request (not a form, a parameter missing or repeated), invalid_grant (a code unknown, expired, used or another app’s; a redirect_uri or code_verifier that does not match), unsupported_grant_type.',
            'invalid_grant',
          ),
          ...CLIENT_ERRORS,
        },
      },
    },
    [OAUTH_REVOKE_PATH]: {
      post: {
        operationId: 'revokeToken',
        tags: ['Connect'],
        summary: 'Revokes a key the app obtained (RFC 7009): refused within 1 s.',
        description: 'Answers 200 with {} whatever the token was: an unknown key, or another app’s, is left alone.',
        security: CLIENT_SECURITY,
        requestBody: form('RevocationRequest'),
        responses: {
          '200': {
            description: 'Done (or nothing to do).',
            headers: { ...COMMON_HEADERS, ...NO_STORE },
            content: { 'application/json': { schema: { type: 'object', maxProperties: 0 }, example: {} } },
          },
          '400': oauthError('invalid_request: not a form, or no token.', 'invalid_request'),
          ...CLIENT_ERRORS,
        },
      },
    },
    [OAUTH_METADATA_PATH]: {
      get: {
        operationId: 'getAuthorizationServerMetadata',
        tags: ['Connect'],
        security: [],
        summary: 'RFC 8414 metadata: what a standard OAuth client configures itself from.',
        description: 'Served while the app page runs (serve --app-port); else 404.',
        responses: {
          '200': {
            description: 'The metadata.',
            headers: COMMON_HEADERS,
            content: json('AuthorizationServerMetadata', {
              issuer: 'https://api.diet.example',
              authorization_endpoint: 'https://meals.diet.example/oauth/authorize',
              token_endpoint: 'https://api.diet.example/oauth/token',
              revocation_endpoint: 'https://api.diet.example/oauth/revoke',
            }),
          },
          ...responsesOf(
            {
              '404': error(
                'not_found: the app page does not run (serve without --app-port), so no grant can be asked for.',
                {},
                errorExample('not_found', notFoundMessage(PUBLIC_API_WHERE)),
              ),
            },
            true,
          ),
        },
      },
    },
  };
}
