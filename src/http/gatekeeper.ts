import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.js';
import { noSuchResource, PUBLIC_API_WHERE } from '../listener/not-found.js';
import { pathOf } from '../listener/request-report.js';
import { PUBLIC_METHODS, PUBLIC_ROUTE_METHODS, PUBLIC_ROUTES } from './public-routes.js';

/** A URL over 8 KiB is 414 (docs/errors.md), counted as the request line sent it. */
export const MAX_URL_BYTES = 8 * 1024;
const MAX_HEADER_BYTES = 16 * 1024;

function headerBytes(rawHeaders: readonly string[]): number {
  // name + ": " + value + CRLF for each header.
  let total = 0;
  for (const part of rawHeaders) total += part.length + 2;
  return total;
}

/** Whether a path's percent-encoding decodes (find-my-way would refuse it before any hook). */
function decodes(path: string): boolean {
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** A request the HTTP parser should have refused (`400 bad_request`). */
export const malformed = (): AppError => new AppError('bad_request', 'The request is malformed.');

/**
 * What every listener of the service refuses before its routes, in the contract's order
 * (docs/errors.md): a URL over 8 KiB (414), headers over 16 KiB (431), an HTTP/1.1 request
 * without Host (400, RFC 9112 section 3.2).
 */
export function transportRefusal(request: IncomingMessage): AppError | undefined {
  if ((request.url ?? '/').length > MAX_URL_BYTES) {
    return new AppError('request_too_large', 'The URL is longer than 8 KiB.', { status: 414 });
  }
  // Every header line is counted: the front door lifts Node's cap of 1000 (maxHeadersCount).
  if (headerBytes(request.rawHeaders) > MAX_HEADER_BYTES) {
    return new AppError('request_too_large', 'The request headers are larger than 16 KiB.', { status: 431 });
  }
  if (request.httpVersion === '1.1' && request.headers.host === undefined) return malformed();
  return undefined;
}

/**
 * The first check before authentication that the request fails, in the contract's order
 * (docs/errors.md), if any: request size, then what the HTTP parser would refuse
 * (an HTTP/1.1 request without Host, RFC 9112 section 3.2; a path that fails decoding), OPTIONS,
 * route, method, Origin. The front door asks it of every request of the public listener,
 * before any framework reads the request.
 */
export function preAuthRefusal(request: IncomingMessage): AppError | undefined {
  const transport = transportRefusal(request);
  if (transport !== undefined) return transport;
  const path = pathOf(request.url ?? '/');
  if (!decodes(path)) return malformed();
  if (request.method === 'OPTIONS') return browserForbidden();
  const methods = PUBLIC_ROUTES.get(path);
  if (methods === undefined) return notFound();
  if (PUBLIC_ROUTE_METHODS.get(path)?.has(request.method ?? '') !== true) {
    const use = methods === PUBLIC_METHODS ? 'GET or HEAD' : methods;
    return new AppError('method_not_allowed', `${request.method} is not allowed here: use ${use}.`, {
      headers: { allow: methods },
    });
  }
  if (request.headers.origin !== undefined) return browserForbidden();
  return undefined;
}

/** A CONNECT's refusal on the public listener (404 or 405): CONNECT is no method of a route. */
export function connectRefusal(request: IncomingMessage): AppError {
  return preAuthRefusal(request) ?? notFound();
}

/** The public listener's 404 (listener/not-found.ts): the path is not echoed. */
export function notFound(): AppError {
  return noSuchResource(PUBLIC_API_WHERE);
}

// Keys must never be used from a browser (spec: "never exposed on the client side").
function browserForbidden(): AppError {
  return new AppError(
    'browser_forbidden',
    'This API is not for browsers: call it from a server, where the API key stays secret.',
  );
}
