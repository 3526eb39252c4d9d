import type { IncomingMessage } from 'node:http';
import type { ServiceTokenRecord } from '../domain/service-token-records.js';
import { AppError } from '../errors.js';
import { type AuthFailureGuard, authenticateBearer, type CredentialRefusals } from '../http/authenticate.js';
import { clientAddressOf, type TrustedProxies } from '../listener/client-address.js';

/** The challenge of the host API's 401s: a realm of its own, so a client can tell the two doors apart. */
export const HOST_BEARER_CHALLENGE = 'Bearer realm="meal-export-host"';
const WWW_AUTHENTICATE = { 'www-authenticate': HOST_BEARER_CHALLENGE };

const SERVICE_TOKEN_REFUSALS: CredentialRefusals = {
  missing: () => new AppError('missing_token', 'Missing service token.', { headers: WWW_AUTHENTICATE }),
  invalid: () => new AppError('invalid_token', 'Invalid service token.', { headers: WWW_AUTHENTICATE }),
};

/** What finds a service token: keys/service-token-authenticator.ts. */
export interface ServiceTokenLookup {
  authenticate(token: string, now: number): Promise<ServiceTokenRecord | undefined>;
}

export interface HostAuthentication {
  readonly tokens: ServiceTokenLookup;
  readonly guard: AuthFailureGuard;
  readonly trustedProxies: TrustedProxies | undefined;
}

/**
 * The service token of a host API request, or its refusal: the public listener's rule for
 * failed attempts per client address (docs/host-api.md#service-tokens), with the host API's
 * own codes. A user's API key is no service token: it is refused like any other text.
 */
export function authenticateService(
  request: Pick<IncomingMessage, 'headers' | 'socket'>,
  auth: HostAuthentication,
  now: number,
): Promise<ServiceTokenRecord> {
  const address = () =>
    clientAddressOf(request.socket.remoteAddress ?? '', request.headers['x-forwarded-for'], auth.trustedProxies);
  const lookup = (token: string) => auth.tokens.authenticate(token, now);
  return authenticateBearer(request.headers.authorization, address, lookup, auth.guard, now, SERVICE_TOKEN_REFUSALS);
}
