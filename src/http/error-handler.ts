import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { sendError } from './json-response.js';

/**
 * Renders every failure as the contract's JSON: AppErrors as they are, requests the framework
 * refuses as 400 bad_request, anything else as a 500 with nothing of its internals.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) {
      if (error.code === 'unavailable') request.log.warn({ err: error.cause ?? error }, 'storage unavailable');
      return sendError(reply, error);
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return sendError(reply, new AppError('bad_request', 'The request is malformed.'));
    }
    request.log.error({ err: error }, 'request failed');
    return sendError(reply, new AppError('internal_error', 'Internal server error.'));
  });

  // Reached only when the gatekeeper let a request through that no route answers.
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new AppError('not_found', `No such resource: ${request.url.split('?')[0]?.slice(0, 200)}`)),
  );
}
