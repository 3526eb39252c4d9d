import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppError } from '../errors.js';
import { sendError } from './error-answer.js';
import { errorOf, frameworkRefusal } from './failure.js';
import { commonHeaders } from './json-response.js';
import { noSuchResource } from './not-found.js';

/**
 * How a listener answers what fails (docs/errors.md): one mapping of every failure to an
 * AppError (listener/failure.ts errorOf), the same on the three listeners, and what differs
 * between them given here: the renderer (the JSON listeners' errors, the page's HTML), what a
 * path no route has is told, and a refusal of the listener's own that comes first.
 */
export interface ErrorMapping {
  /** The listener's headers of every answer: the framework's refusals come before its hooks set them. */
  readonly headers: Readonly<Record<string, string>>;
  /** Writes the answer of an error (status, its headers, the body). */
  readonly render: (reply: FastifyReply, error: AppError) => FastifyReply;
  /** What a request that no route answers gets. */
  readonly notFound: (request: FastifyRequest) => AppError;
  /** A refusal of the listener's own that the framework's refusal must not hide (the host API's sizes and ids). */
  readonly beforeFramework?: (request: FastifyRequest) => AppError | undefined;
  /** A route's failure as the listener sees it first (the host API's body over its limit), then mapped. */
  readonly refine?: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => Error;
  /** The page's: Fastify's own 4xx status kept (415, 413), since no contract fixes a page's statuses. */
  readonly keepFrameworkStatus?: boolean;
  /** The message of the log line of a 500 (default `request failed`). */
  readonly failureLogged?: string;
}

/**
 * The mapping of a JSON listener (the public one, the host API's): the errors' JSON with the
 * headers every answer carries, and a 404 saying `where` that listener's API is.
 */
export function jsonErrorMapping(tls: boolean, where: string, own: Partial<ErrorMapping> = {}): ErrorMapping {
  return { headers: commonHeaders(tls), render: sendError, notFound: () => noSuchResource(where), ...own };
}

/** Fastify's `frameworkErrors` option: what its router refuses (a path not percent-decodable). */
export function frameworkErrorsOf(mapping: ErrorMapping) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.headers(mapping.headers);
    const own = mapping.beforeFramework?.(request);
    const keep = mapping.keepFrameworkStatus === true;
    mapping.render(reply, own ?? frameworkRefusal(error, reply.log, keep, mapping.failureLogged));
  };
}

/** The listener's error and not-found handlers, both through the mapping. */
export function registerErrorMapping(app: FastifyInstance, mapping: ErrorMapping): void {
  const keep = mapping.keepFrameworkStatus === true;
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const seen = mapping.refine?.(error, request, reply) ?? error;
    return mapping.render(reply, errorOf(seen, request.log, keep, mapping.failureLogged));
  });
  app.setNotFoundHandler((request, reply) => mapping.render(reply, mapping.notFound(request)));
}
