import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { failureOf, frameworkRefusal } from '../listener/failure.js';
import { AppError } from '../errors.js';
import { notFound } from './gatekeeper.js';
import { sendError } from '../listener/error-answer.js';

/**
 * Renders every failure as the contract's JSON: AppErrors as they are, requests the framework
 * refuses as 400 bad_request, anything else as a 500 with nothing of its internals.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    const known = error instanceof AppError || error.statusCode === undefined;
    return sendError(reply, known ? failureOf(error, request.log) : frameworkRefusal(error, request.log));
  });

  // Reached only when the gatekeeper let a request through that no route answers.
  app.setNotFoundHandler((_request, reply) => sendError(reply, notFound()));
}
