import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../errors.js';

/** How long a client is told to wait when storage does not answer: a restart or a fail-over. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = '5';

/**
 * The contract's error for a failure of a route: AppErrors as they are (a storage outage
 * logged), anything else logged (`logged`: the line's message) and answered as a 500 with nothing of its
 * internals. errorOf below, every listener's error handler, and http/meals-answer-writer.ts
 * both answer through it.
 */
export function failureOf(error: unknown, log: FastifyBaseLogger, logged = 'request failed'): AppError {
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
  log.error({ err: error }, logged);
  return new AppError('internal_error', 'Internal server error.');
}

/**
 * One of Fastify's own errors (a request its router or body parser refuses, before any route
 * of ours runs) as the contract's error, on every listener: a 4xx is the client's malformed
 * request (`400 bad_request`; with `keepStatus`, the app page's, Fastify's own 4xx, such as 415
 * for a form that is not urlencoded), anything else a bug of ours (`500`, logged).
 */
export function frameworkRefusal(
  error: { readonly statusCode?: number },
  log: FastifyBaseLogger,
  keepStatus = false,
  logged?: string,
): AppError {
  const status = error.statusCode ?? 400;
  if (status >= 400 && status < 500) {
    return new AppError('bad_request', 'The request is malformed.', keepStatus ? { status } : {});
  }
  return failureOf(error, log, logged);
}

/**
 * The one mapping of whatever failed while a listener answered to the error it answers: our
 * AppErrors as they are, Fastify's own refusals as frameworkRefusal says, anything else a 500.
 */
export function errorOf(
  error: Error & { readonly statusCode?: number },
  log: FastifyBaseLogger,
  keepStatus = false,
  logged?: string,
): AppError {
  if (error instanceof AppError || error.statusCode === undefined) return failureOf(error, log, logged);
  return frameworkRefusal(error, log, keepStatus, logged);
}
