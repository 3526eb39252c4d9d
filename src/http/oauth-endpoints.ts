import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { digestApiKey } from '../domain/api-key.js';
import { digestAuthorizationCode } from '../domain/authorization-code.js';
import { verifierMatches } from '../domain/pkce.js';
import { issueAppKey } from '../keys/issue-app-key.js';
import type { TrustedProxies } from '../listener/client-address.js';
import type { Storage } from '../storage/storage.js';
import type { AuthFailureGuard } from './authenticate.js';
import { authenticateClient } from './oauth-client-auth.js';
import { OAuthError, sendOAuthError, sendOAuthJson } from './oauth-error.js';
import { OAUTH_REVOKE_PATH, OAUTH_TOKEN_PATH } from './public-routes.js';

export interface OAuthEndpointDeps {
  readonly storage: Pick<Storage, 'apps' | 'codes' | 'keys'>;
  readonly authGuard: AuthFailureGuard;
  readonly trustedProxies: TrustedProxies | undefined;
}

/** A form of the token endpoint: a redirect URI, a code, a verifier and the client's credentials fit in 16 KiB. */
const FORM_LIMIT = 16 * 1024;
const FORM_TYPE_RE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;

/** The form of a request: `application/x-www-form-urlencoded` only (RFC 6749 section 3.2), parsed by the platform. */
function formOf(request: FastifyRequest): URLSearchParams {
  if (!FORM_TYPE_RE.test(request.headers['content-type'] ?? '') || typeof request.body !== 'string') {
    throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
  }
  return new URLSearchParams(request.body);
}

/** The one value of a required parameter, or invalid_request. */
function required(form: URLSearchParams, name: string): string {
  const values = form.getAll(name);
  if (values.length > 1) throw new OAuthError('invalid_request', `${name} is repeated.`);
  const [value] = values;
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is missing.`);
  return value;
}

const used = (what: string) => new OAuthError('invalid_grant', what);

/** RFC 6749 section 4.1.3: a code of this app, once, within 60 s, with its redirect URI and PKCE verifier. */
async function exchangeCode(request: FastifyRequest, deps: OAuthEndpointDeps): Promise<object> {
  const form = formOf(request);
  const grantType = required(form, 'grant_type');
  const app = await authenticateClient(request, form, { apps: deps.storage.apps, ...deps });
  if (grantType !== 'authorization_code') {
    throw new OAuthError('unsupported_grant_type', 'Only grant_type=authorization_code is supported.');
  }
  const code = required(form, 'code');
  const redirectUri = required(form, 'redirect_uri');
  const verifier = required(form, 'code_verifier');
  const now = Date.now();
  const digest = digestAuthorizationCode(code);
  const found = await deps.storage.codes.redeemAuthorizationCode(digest, now);
  if (found.kind === 'replayed') {
    // RFC 6749 section 4.1.2: the code was presented before, maybe by whoever caught it: its key goes.
    if (found.keyId !== null) await deps.storage.keys.revokeApiKey(found.keyId, now);
    throw used('This code was used already: the key it gave is revoked. Ask the person again.');
  }
  if (found.kind !== 'fresh') throw used('Unknown or expired code: codes work once, within 60 seconds.');
  const grant = found.code;
  if (grant.appId !== app.id) throw used('This code was issued to another app.');
  if (grant.redirectUri !== redirectUri) throw used('redirect_uri is not the one of the authorization request.');
  if (!verifierMatches(verifier, grant.codeChallenge)) throw used('code_verifier does not match the code_challenge.');
  const issued = await issueAppKey(deps.storage.apps, app, grant.userId, now);
  if (!issued.ok) {
    throw used(
      issued.reason === 'too_many_keys'
        ? 'The person holds 10 active keys already: they must revoke one, then connect again.'
        : 'The app is no longer registered.',
    );
  }
  if (await deps.storage.codes.recordCodeKey(digest, issued.record.id)) {
    await deps.storage.keys.revokeApiKey(issued.record.id, now);
    throw used('This code was presented twice: the key is revoked. Ask the person again.');
  }
  return {
    access_token: issued.key,
    token_type: 'Bearer',
    scope: grant.scope,
    key_id: issued.record.id,
    user_id: grant.userId,
  };
}

/** RFC 7009: a key this app obtained is revoked; anything else is left alone, with the same answer. */
async function revoke(request: FastifyRequest, deps: OAuthEndpointDeps): Promise<object> {
  const form = formOf(request);
  const app = await authenticateClient(request, form, { apps: deps.storage.apps, ...deps });
  const token = required(form, 'token');
  const [key] = await deps.storage.keys.findApiKeysByDigests([digestApiKey(token)]);
  if (key !== undefined && key.appId === app.id) await deps.storage.keys.revokeApiKey(key.id, Date.now());
  return {};
}

function answering(work: (request: FastifyRequest) => Promise<object>) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      return sendOAuthJson(reply, 200, await work(request));
    } catch (error) {
      if (error instanceof OAuthError) return sendOAuthError(reply, error);
      // The store's unavailability and the like: the API's own errors (listener/error-answer.ts).
      throw error;
    }
  };
}

/**
 * Connect's token and revocation endpoints on the public listener (docs/connect.md#the-grant):
 * forms in, RFC 6749's JSON out. Their own encapsulated plugin takes the body as text, whatever
 * its type, so that every refusal is OAuth's rather than the framework's.
 */
export async function registerOAuthEndpoints(app: FastifyInstance, deps: OAuthEndpointDeps): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, body, done) =>
      done(null, body),
    );
    scope.post(
      OAUTH_TOKEN_PATH,
      { bodyLimit: FORM_LIMIT },
      answering((request) => exchangeCode(request, deps)),
    );
    scope.post(
      OAUTH_REVOKE_PATH,
      { bodyLimit: FORM_LIMIT },
      answering((request) => revoke(request, deps)),
    );
  });
}
