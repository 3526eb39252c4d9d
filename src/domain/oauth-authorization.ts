import { isPkceValue, PKCE_METHOD } from './pkce.js';

/**
 * The authorization request of Connect (docs/connect.md#the-grant; RFC 6749 section 4.1.1 with
 * RFC 7636's PKCE): checked in RFC 6749 section 4.1.2.1's order. A request whose app or
 * redirect URI cannot be trusted gets a page and never a redirect (else the page would send
 * the browser anywhere); every other fault goes back to the app's redirect URI as an error.
 */

/** The one scope: the person's meals, read-only. */
export const MEALS_READ_SCOPE = 'meals:read';

/** What the check needs of an app. */
export interface AuthorizingApp {
  readonly id: string;
  readonly redirectUris: readonly string[];
}

export interface AuthorizationRequest {
  readonly appId: string;
  /** As the request gave it: the token request must give the same. */
  readonly redirectUri: string;
  readonly state: string;
  readonly codeChallenge: string;
  readonly scope: string;
}

export type OAuthErrorCode = 'invalid_request' | 'unsupported_response_type' | 'invalid_scope' | 'access_denied';

export type AuthorizationCheck =
  /** No redirect: the page says why (an unknown app, a redirect URI not registered). */
  | { readonly kind: 'refused'; readonly reason: string }
  /** Back to the app with an error (`state` when the request had one). */
  | {
      readonly kind: 'error';
      readonly redirectUri: string;
      readonly state: string | undefined;
      readonly error: OAuthErrorCode;
      readonly description: string;
    }
  | { readonly kind: 'valid'; readonly request: AuthorizationRequest };

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Whether `given` is one of the app's redirect URIs: equal character for character, but that
 * an `http` loopback URI's port may differ (RFC 8252 section 7.3: a native app takes a free
 * port at run time).
 */
export function isRegisteredRedirectUri(registered: readonly string[], given: string): boolean {
  if (registered.includes(given)) return true;
  const loopback = loopbackWithoutPort(given);
  return loopback !== undefined && registered.some((uri) => loopbackWithoutPort(uri) === loopback);
}

function loopbackWithoutPort(uri: string): string | undefined {
  if (!URL.canParse(uri)) return undefined;
  const url = new URL(uri);
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  url.port = '';
  return url.href;
}

/** The one value of a parameter; `repeated` when it came more than once. */
function single(query: URLSearchParams, name: string): string | undefined | 'repeated' {
  const values = query.getAll(name);
  if (values.length > 1) return 'repeated';
  return values[0];
}

/** The app id a request names, when it names exactly one: the caller looks it up. */
export function requestedAppId(query: URLSearchParams): string | undefined {
  const id = single(query, 'client_id');
  return id === 'repeated' || id === '' ? undefined : id;
}

/** Checks an authorization request against its app (undefined: none has that id). */
export function checkAuthorizationRequest(query: URLSearchParams, app: AuthorizingApp | undefined): AuthorizationCheck {
  if (app === undefined || requestedAppId(query) !== app.id) {
    return { kind: 'refused', reason: 'The app asking is not registered with this service.' };
  }
  const redirectUri = single(query, 'redirect_uri');
  if (
    redirectUri === undefined ||
    redirectUri === 'repeated' ||
    !isRegisteredRedirectUri(app.redirectUris, redirectUri)
  ) {
    return { kind: 'refused', reason: 'The address the app asks to send you back to is not one it registered.' };
  }
  const state = single(query, 'state');
  const fault = (error: OAuthErrorCode, description: string): AuthorizationCheck => ({
    kind: 'error',
    redirectUri,
    state: state === 'repeated' || state === '' ? undefined : state,
    error,
    description,
  });
  const values = new Map<string, string>();
  for (const name of ['response_type', 'state', 'code_challenge', 'code_challenge_method', 'scope']) {
    const value = single(query, name);
    if (value === 'repeated') return fault('invalid_request', `${name} is given more than once.`);
    if (value !== undefined) values.set(name, value);
  }
  const responseType = values.get('response_type');
  if (responseType === undefined || responseType === '') return fault('invalid_request', 'response_type is missing.');
  if (responseType !== 'code') return fault('unsupported_response_type', 'Only response_type=code is supported.');
  const givenState = values.get('state');
  if (givenState === undefined || givenState === '') return fault('invalid_request', 'state is required.');
  const challenge = values.get('code_challenge');
  if (challenge === undefined) return fault('invalid_request', 'PKCE is required: code_challenge is missing.');
  if (values.get('code_challenge_method') !== PKCE_METHOD) {
    return fault('invalid_request', 'code_challenge_method must be S256.');
  }
  if (!isPkceValue(challenge)) {
    return fault(
      'invalid_request',
      'code_challenge must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~".',
    );
  }
  const scope = values.get('scope') ?? MEALS_READ_SCOPE;
  const scopes = scope.split(' ').filter((part) => part !== '');
  if (scopes.length === 0 || scopes.some((part) => part !== MEALS_READ_SCOPE)) {
    return fault('invalid_scope', `The only scope is ${MEALS_READ_SCOPE}.`);
  }
  return {
    kind: 'valid',
    request: { appId: app.id, redirectUri, state: givenState, codeChallenge: challenge, scope: MEALS_READ_SCOPE },
  };
}

/**
 * The redirect URI with the answer's parameters added to its own query (RFC 6749 section
 * 4.1.2: the URI's query is kept), and `iss` (RFC 9207) so the app knows which server answered.
 */
export function redirectWith(
  redirectUri: string,
  issuer: string,
  parameters: Readonly<Record<string, string | undefined>>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.append(name, value);
  url.searchParams.append('iss', issuer);
  return url.href;
}
