import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JSON_CONTENT_TYPE } from '../listener/json-response.js';

/** What a host API handler answers: the status and the body, a JSON value or JSON text made already. */
export type HostAnswer =
  { readonly status: number; readonly body: unknown } | { readonly status: number; readonly raw: string };

export type HostHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<HostAnswer>;

export type HostMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

/** A method of a path: the query parameters it takes (none when not said) and its handler. */
export interface HostOperation {
  readonly query: readonly string[];
  readonly handle: HostHandler;
}

/** A path's methods: a handler alone takes no query parameter. */
export type HostOperations = Partial<Record<HostMethod, HostHandler | HostOperation>>;

/** The methods a path can be asked with: every one reaches the resource, which answers 405 for the ones it lacks. */
const EVERY_METHOD = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** What each route carries to the hooks of host-app.ts. */
export interface HostRouteConfig {
  /** The path as the document and /metrics name it: `/host/v1/users/{userId}/meals/{mealId}`. */
  readonly template: string;
  /** Its methods, in the order `Allow` lists them (HEAD beside GET). */
  readonly allow: readonly string[];
  /** False for the OpenAPI document and the health check, the paths open without a token. */
  readonly authenticated: boolean;
  /** The query parameters each method takes (HEAD: GET's); any other is refused before the body is read. */
  readonly query: Readonly<Record<string, readonly string[]>>;
}

/** `/host/v1/users/:userId/meals/:mealId` as the document writes it. */
export function templateOf(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}');
}

/**
 * One path of the host API with a handler per method. Every method reaches it, so that a known
 * path asked with another method is a 405 with `Allow` (docs/host-api.md#errors), decided in
 * host-app.ts's onRequest hook before authentication, rather than Fastify's 404.
 */
export function registerResource(
  app: FastifyInstance,
  url: string,
  operations: HostOperations,
  options: { readonly authenticated?: boolean } = {},
): void {
  const handlers: Partial<Record<HostMethod, HostHandler>> = {};
  const query: Record<string, readonly string[]> = {};
  for (const [method, operation] of Object.entries(operations) as [HostMethod, HostHandler | HostOperation][]) {
    handlers[method] = typeof operation === 'function' ? operation : operation.handle;
    query[method] = typeof operation === 'function' ? [] : operation.query;
  }
  query.HEAD = query.GET ?? [];
  const methods = Object.keys(handlers) as HostMethod[];
  const allow = methods.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]));
  const config: HostRouteConfig = {
    template: templateOf(url),
    allow,
    authenticated: options.authenticated ?? true,
    query,
  };
  app.route({
    method: [...EVERY_METHOD],
    url,
    config,
    handler: async (request, reply) => {
      const method = (request.method === 'HEAD' ? 'GET' : request.method) as HostMethod;
      const handler = handlers[method];
      // host-app.ts answered 405 for the others already.
      if (handler === undefined) throw new Error(`no handler for ${request.method} ${url}`);
      const answer = await handler(request, reply);
      reply.code(answer.status);
      if ('raw' in answer) return reply.type(JSON_CONTENT_TYPE).send(answer.raw);
      return reply.send(answer.body);
    },
  });
}
