import type { FastifyInstance } from 'fastify';
import { MEALS_READ_SCOPE } from '../domain/oauth-authorization.js';
import { PKCE_METHOD } from '../domain/pkce.js';
import { JSON_CONTENT_TYPE } from '../listener/json-response.js';
import { notFound } from './gatekeeper.js';
import { OAUTH_METADATA_PATH, OAUTH_REVOKE_PATH, OAUTH_TOKEN_PATH } from './public-routes.js';

/** Where Connect's parts are, once the app page listens: undefined while it does not. */
export interface ConnectAddresses {
  /** The API's public address (`--api-public-url`, else the listener's own): the issuer. */
  readonly issuer: string;
  /** The app page's `/oauth/authorize` as browsers reach it. */
  readonly authorizationEndpoint: string;
}

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'];

/** RFC 8414's metadata of Connect (docs/connect.md#discovery): what a standard client configures itself from. */
export function connectMetadata(addresses: ConnectAddresses): object {
  const { issuer } = addresses;
  return {
    issuer,
    authorization_endpoint: addresses.authorizationEndpoint,
    token_endpoint: `${issuer}${OAUTH_TOKEN_PATH}`,
    revocation_endpoint: `${issuer}${OAUTH_REVOKE_PATH}`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code'],
    code_challenge_methods_supported: [PKCE_METHOD],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    scopes_supported: [MEALS_READ_SCOPE],
    authorization_response_iss_parameter_supported: true,
  };
}

/** `GET /.well-known/oauth-authorization-server`: served while the app page runs, else 404. */
export function registerOAuthMetadata(app: FastifyInstance, addresses: () => ConnectAddresses | undefined): void {
  app.get(OAUTH_METADATA_PATH, async (_request, reply) => {
    const current = addresses();
    if (current === undefined) throw notFound();
    return reply.type(JSON_CONTENT_TYPE).send(JSON.stringify(connectMetadata(current)));
  });
}
