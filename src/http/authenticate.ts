import type { IncomingMessage } from 'node:http';
import type { KeyAuthenticator } from '../keys/key-authenticator.js';
import { AppError } from '../errors.js';
import type { KnownBlocks } from '../ratelimit/known-blocks.js';
import type { AuthFailureLimiter } from '../ratelimit/rate-limiter.js';
import type { ApiKeyRecord } from '../domain/key-records.js';
import { clientAddressOf, type TrustedProxies } from '../listener/client-address.js';
import { retryAfterSeconds } from './rate-limit-headers.js';

/** The challenge of every 401 (docs/api.md#limits); the OpenAPI document describes the same value. */
export const BEARER_CHALLENGE = 'Bearer realm="meal-export"';
const WWW_AUTHENTICATE = { 'www-authenticate': BEARER_CHALLENGE };
const BEARER_RE = /^bearer(?:\s+(.*))?$/i;

/** Reads the key from the Authorization header only (docs/api.md#keys); the scheme is case-insensitive. */
function readCredentials(header: string | undefined): ReadCredentials<string> {
  const value = header?.trim() ?? '';
  if (value === '') return { kind: 'missing' };
  const m = BEARER_RE.exec(value);
  if (m === null) return { kind: 'other' };
  const token = m[1]?.trim() ?? '';
  return token === '' ? { kind: 'missing' } : { kind: 'token', token };
}

/** The brute-force guard as authentication asks it: the shared guard, and what this process knows of its blocks. */
export interface AuthFailureGuard {
  readonly limiter: AuthFailureLimiter;
  readonly known: KnownBlocks;
}

/** The two refusals of a listener's credentials: none given, and any other fault (one answer: no oracle). */
export interface CredentialRefusals {
  readonly missing: () => Error;
  readonly invalid: () => Error;
  /** The refusal of an address that failed too often; the contract's 429 when absent. */
  readonly tooMany?: (waitMs: number) => Error;
}

/** The refusal of a key that is not, or no longer, accepted: unknown, malformed, revoked, expired. */
export const invalidApiKey = () => new AppError('invalid_api_key', 'Invalid API key.', { headers: WWW_AUTHENTICATE });

const API_KEY_REFUSALS: CredentialRefusals = {
  missing: () => new AppError('missing_api_key', 'Missing API key.', { headers: WWW_AUTHENTICATE }),
  invalid: invalidApiKey,
};

/**
 * The credential of a request as `lookup` finds it, or the listener's refusal (401), or 429
 * once the client address has failed too often: the one brute-force rule of every listener
 * that takes a bearer credential (docs/api.md#limits). The block is checked first, from
 * memory: a blocked address's request is refused without asking the guard, and its
 * credential, which must still pass if valid, is looked up with `paced` set.
 */
export function authenticateBearer<T>(
  authorization: string | undefined,
  /** Read only when some address is blocked or the credential is refused (the first read on a connection is a system call). */
  clientAddress: () => string,
  lookup: (token: string, paced: boolean) => Promise<T | undefined>,
  guard: AuthFailureGuard,
  now: number,
  refusals: CredentialRefusals,
): Promise<T> {
  return authenticateGuarded(readCredentials(authorization), clientAddress, lookup, guard, now, refusals);
}

/** Credentials as a listener read them: none, some of its kind `C`, or something else. */
export type ReadCredentials<C> =
  { readonly kind: 'missing' } | { readonly kind: 'token'; readonly token: C } | { readonly kind: 'other' };

/**
 * authenticateBearer's rule for any kind of credential (a bearer token; an OAuth client's id and
 * secret, http/oauth-client-auth.ts): the address's block first, from memory; the lookup; a
 * failure counted per address, and 429 once it has failed too often.
 */
export async function authenticateGuarded<C, T>(
  credentials: ReadCredentials<C>,
  clientAddress: () => string,
  lookup: (token: C, paced: boolean) => Promise<T | undefined>,
  guard: AuthFailureGuard,
  now: number,
  refusals: CredentialRefusals,
): Promise<T> {
  // Read at most once: behind trusted proxies it walks X-Forwarded-For (listener/client-address.ts).
  let address: string | undefined;
  const addressOnce = () => (address ??= clientAddress());
  const blockedMs = guard.known.size === 0 ? 0 : guard.known.remainingMs(addressOnce(), now);
  if (credentials.kind === 'token') {
    const found = await lookup(credentials.token, blockedMs > 0);
    if (found !== undefined) return found;
  }
  let waitMs = blockedMs;
  if (waitMs === 0) {
    waitMs = await guard.limiter.registerFailure(addressOnce(), now);
    if (waitMs > 0) guard.known.note(addressOnce(), waitMs, now);
  }
  if (waitMs > 0) throw refusals.tooMany?.(waitMs) ?? tooManyFailures(waitMs);
  throw credentials.kind === 'missing' ? refusals.missing() : refusals.invalid();
}

function tooManyFailures(waitMs: number): AppError {
  return new AppError('rate_limited', 'Too many failed authentications from this address: retry later.', {
    headers: { 'retry-after': retryAfterSeconds(waitMs) },
  });
}

/**
 * The key of the request, or the contract's refusal: 401 missing_api_key / invalid_api_key,
 * or 429 once the client address has failed too often (authenticateBearer). A blocked
 * address's valid key is looked up in a paced batch, not with a query of its own.
 */
export function authenticateRequest(
  authorization: string | undefined,
  clientAddress: () => string,
  authenticator: KeyAuthenticator,
  guard: AuthFailureGuard,
  now: number,
): Promise<ApiKeyRecord> {
  const lookup = (token: string, paced: boolean) => authenticator.authenticate(token, now, paced ? 'paced' : 'at-once');
  return authenticateBearer(authorization, clientAddress, lookup, guard, now, API_KEY_REFUSALS);
}

/** What authenticating an API request needs besides the guard: the keys, and whose X-Forwarded-For to trust. */
export interface RequestAuthentication {
  readonly authenticator: KeyAuthenticator;
  readonly trustedProxies: TrustedProxies | undefined;
}

/** authenticateRequest for a request as Node hands it over: its Authorization header and its client's address. */
export function authenticateIncoming(
  request: Pick<IncomingMessage, 'headers' | 'socket'>,
  deps: RequestAuthentication,
  guard: AuthFailureGuard,
  now: number,
): Promise<ApiKeyRecord> {
  const address = () =>
    clientAddressOf(request.socket.remoteAddress ?? '', request.headers['x-forwarded-for'], deps.trustedProxies);
  return authenticateRequest(request.headers.authorization, address, deps.authenticator, guard, now);
}
