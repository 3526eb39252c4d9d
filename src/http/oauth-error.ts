import type { FastifyReply } from 'fastify';
import { JSON_CONTENT_TYPE } from '../listener/json-response.js';

/** RFC 6749 section 5.2's error codes of the token and revocation endpoints, and rate_limited for a blocked address. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'unsupported_token_type'
  | 'rate_limited';

/** The challenge of a client not authenticated (docs/connect.md#errors). */
export const BASIC_CHALLENGE = 'Basic realm="meal-export"';

/**
 * A refusal of the token or revocation endpoint, answered in RFC 6749 section 5.2's JSON
 * (`{"error","error_description"}`) rather than the API's own error shape, as OAuth clients
 * read it (docs/connect.md#errors).
 */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status: number = error === 'invalid_client' ? 401 : error === 'rate_limited' ? 429 : 400,
    readonly headers: Readonly<Record<string, string>> = error === 'invalid_client'
      ? { 'www-authenticate': BASIC_CHALLENGE }
      : {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

/** Sends a JSON answer that no cache keeps (RFC 6749 section 5.1): a token, an error, `{}`. */
export function sendOAuthJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .type(JSON_CONTENT_TYPE)
    .send(JSON.stringify(body));
}

export function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return sendOAuthJson(reply, error.status, { error: error.error, error_description: error.description });
}
