import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError } from '../errors.js';
import { commonHeaders } from './json-response.js';

/** The paths of the public listener; each answers GET and HEAD only. */
export const PUBLIC_PATHS = new Set(['/v1/meals', '/healthz', '/readyz', '/v1/openapi.json']);

const MAX_URL_BYTES = 8 * 1024;
const MAX_HEADER_BYTES = 16 * 1024;

function headerBytes(rawHeaders: readonly string[]): number {
  // name + ": " + value + CRLF for each header.
  let total = 0;
  for (const part of rawHeaders) total += part.length + 2;
  return total;
}

/**
 * The checks that come before authentication, in the contract's order (CONTRACT.md section 5):
 * request size, OPTIONS, route, method, Origin. It also sets the headers every response
 * carries, first, so that every answer below has them.
 */
export function createGatekeeper(tls: boolean) {
  const headers = commonHeaders(tls);
  // A callback hook, not an async one: it runs on every request and needs no promise.
  return function gatekeeper(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    reply.headers(headers);
    done(preAuthRefusal(request.raw));
  };
}

/**
 * The first pre-authentication check the request fails, in the contract's order, if any.
 * server-routing.ts asks it too, to pick who answers.
 */
export function preAuthRefusal(request: IncomingMessage): AppError | undefined {
  const url = request.url ?? '/';
  if (url.length > MAX_URL_BYTES) {
    return new AppError('request_too_large', 'The URL is longer than 8 KiB.', { status: 414 });
  }
  if (headerBytes(request.rawHeaders) > MAX_HEADER_BYTES) {
    return new AppError('request_too_large', 'The request headers are larger than 16 KiB.', { status: 431 });
  }
  if (request.method === 'OPTIONS') return browserForbidden();
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  if (!PUBLIC_PATHS.has(path)) return notFound();
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new AppError('method_not_allowed', `${request.method} is not allowed here: use GET or HEAD.`, {
      headers: { allow: 'GET, HEAD' },
    });
  }
  if (request.headers.origin !== undefined) return browserForbidden();
  return undefined;
}

/**
 * The path is not echoed: a key pasted into the URL by mistake must not come back in the
 * body (issue 10), nor anything else of the request.
 */
export function notFound(): AppError {
  return new AppError('not_found', 'No such resource: the API is GET /v1/meals (see /v1/openapi.json).');
}

// Keys must never be used from a browser (spec: "never exposed on the client side").
function browserForbidden(): AppError {
  return new AppError(
    'browser_forbidden',
    'This API is not for browsers: call it from a server, where the API key stays secret.',
  );
}
