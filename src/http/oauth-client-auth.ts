import type { FastifyRequest } from 'fastify';
import type { AppRecord } from '../domain/app-records.js';
import { digestAppSecret, isWellFormedAppSecret } from '../domain/app-secret.js';
import { type TrustedProxies, clientAddressOf } from '../listener/client-address.js';
import type { AppStore } from '../storage/app-store.js';
import { type AuthFailureGuard, authenticateGuarded, type ReadCredentials } from './authenticate.js';
import { retryAfterSeconds } from './rate-limit-headers.js';
import { OAuthError } from './oauth-error.js';

/** An OAuth client's credentials as a request gave them. */
interface ClientCredentials {
  readonly id: string;
  readonly secret: string;
}

const BASIC_RE = /^basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i;

/** RFC 6749 section 2.3.1: each of id and secret form-encoded, then joined by `:` and base64. */
function fromBasic(header: string): ClientCredentials | undefined {
  const encoded = BASIC_RE.exec(header)?.[1];
  if (encoded === undefined) return undefined;
  const pair = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return { id: decode(pair.slice(0, colon)), secret: decode(pair.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/**
 * The client of a request, by `client_secret_basic` or `client_secret_post`, never both: a body
 * `client_id` beside Basic must name the same client. `invalid_request` for a request that
 * gives them twice or in pieces.
 */
function readClient(request: FastifyRequest, form: URLSearchParams): ReadCredentials<ClientCredentials> {
  const header = request.headers.authorization;
  const ids = form.getAll('client_id');
  const secrets = form.getAll('client_secret');
  if (ids.length > 1 || secrets.length > 1)
    throw new OAuthError('invalid_request', 'client_id or client_secret is repeated.');
  if (header !== undefined) {
    if (secrets.length > 0) {
      throw new OAuthError(
        'invalid_request',
        'The client authenticates with HTTP Basic or with client_secret, never both.',
      );
    }
    const basic = fromBasic(header);
    if (basic === undefined) return { kind: 'other' };
    if (ids.length === 1 && ids[0] !== basic.id)
      throw new OAuthError('invalid_request', 'client_id differs from the one authenticated.');
    return { kind: 'token', token: basic };
  }
  const [id] = ids;
  const [secret] = secrets;
  if (id === undefined && secret === undefined) return { kind: 'missing' };
  if (id === undefined || secret === undefined) return { kind: 'other' };
  return { kind: 'token', token: { id, secret } };
}

const REFUSALS = {
  missing: () =>
    new OAuthError(
      'invalid_client',
      'The client is not authenticated: send client_secret_basic or client_secret_post.',
    ),
  invalid: () => new OAuthError('invalid_client', 'Unknown client, or a wrong secret.'),
  tooMany: (waitMs: number) =>
    new OAuthError('rate_limited', 'Too many failed authentications from this address: retry later.', 429, {
      'retry-after': retryAfterSeconds(waitMs),
    }),
};

export interface ClientAuthDeps {
  readonly apps: Pick<AppStore, 'findAppBySecretDigest'>;
  readonly authGuard: AuthFailureGuard;
  readonly trustedProxies: TrustedProxies | undefined;
}

/**
 * The app a token or revocation request comes from, or the OAuthError to answer: a failed
 * client authentication counts against the address as a failed key does (docs/api.md#limits).
 */
export function authenticateClient(
  request: FastifyRequest,
  form: URLSearchParams,
  deps: ClientAuthDeps,
): Promise<AppRecord> {
  const { raw } = request;
  const address = () =>
    clientAddressOf(raw.socket.remoteAddress ?? '', raw.headers['x-forwarded-for'], deps.trustedProxies);
  const lookup = async ({ id, secret }: ClientCredentials) => {
    if (!isWellFormedAppSecret(secret)) return undefined;
    const app = await deps.apps.findAppBySecretDigest(digestAppSecret(secret));
    return app?.id === id ? app : undefined;
  };
  return authenticateGuarded(readClient(request, form), address, lookup, deps.authGuard, Date.now(), REFUSALS);
}
