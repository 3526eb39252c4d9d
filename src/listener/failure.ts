import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../errors.js';

/** How long a client is told to wait when storage does not answer: a restart or a fail-over. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = '5';

/**
 * The contract's error for a failure of a route: AppErrors as they are (a storage outage
 * logged), anything else logged and answered as a 500 with nothing of its internals. Fastify's
 * error handler below and http/meals-endpoint.ts both answer through it.
 */
export function failureOf(error: unknown, log: FastifyBaseLogger): AppError {
  if (error instanceof AppError) {
    if (error.code !== 'unavailable') return error;
    log.warn({ err: error.cause ?? error }, 'storage unavailable');
    // A 503 says when to try again (docs/errors.md).
    if (error.headers['retry-after'] !== undefined) return error;
    return new AppError('unavailable', error.message, {
      headers: { ...error.headers, 'retry-after': UNAVAILABLE_RETRY_AFTER_SECONDS },
      cause: error.cause,
    });
  }
  log.error({ err: error }, 'request failed');
  return new AppError('internal_error', 'Internal server error.');
}

/**
 * One of Fastify's own errors (a request its router or body parser refuses, before any route
 * of ours runs) as the contract's error, on every listener: a 4xx is the client's malformed
 * request (`400 bad_request`), anything else a bug of ours (`500`, logged).
 */
export function frameworkRefusal(error: { readonly statusCode?: number }, log: FastifyBaseLogger): AppError {
  const status = error.statusCode ?? 400;
  if (status >= 400 && status < 500) return new AppError('bad_request', 'The request is malformed.');
  return failureOf(error, log);
}
