import type { FastifyInstance, FastifyRequest } from 'fastify';
import { JSON_CONTENT_TYPE } from '../listener/json-response.js';
import { jsonObjectBody, sentJson } from './host-body.js';
import type { BodyOf } from './host-body-schema.js';
import {
  allowOf,
  answeredOperations,
  type BodyDeclaration,
  type HostCall,
  type HostMethod,
  type HostOperation,
  type HostResource,
  type HostRoutesDeps,
  type PathParameter,
  type QueryParameter,
  successStatusOf,
} from './host-route-table.js';

/** The methods a path can be asked with: every one reaches the resource, which answers 405 for the ones it lacks. */
const EVERY_METHOD = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** What each route carries to the hooks of host-app.ts, from its resource's declaration. */
export interface HostRouteConfig {
  /** The path as the document and /metrics name it: `/host/v1/users/{userId}/meals/{mealId}`. */
  readonly template: string;
  /** Its methods, in the order `Allow` lists them (HEAD beside GET). */
  readonly allow: readonly string[];
  /** False for the OpenAPI document and the health check, the paths open without a token. */
  readonly authenticated: boolean;
  /** The path's ids, checked before the body is read. */
  readonly parameters: readonly PathParameter[];
  /** The query parameters each method takes (HEAD: GET's); any other is refused before the body is read. */
  readonly query: Readonly<Record<string, readonly QueryParameter<unknown>[]>>;
}

/** `/host/v1/users/{userId}` as the router writes it: `/host/v1/users/:userId`. */
function routerPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** The body a method declares, checked: its JSON object, or `{}` when it reads none or a stream. */
function bodyOf(request: FastifyRequest, declared: BodyDeclaration | undefined): Readonly<Record<string, unknown>> {
  if (declared === undefined || declared.kind === 'json-lines') return {};
  if (declared.kind === 'record') return jsonObjectBody(request);
  return declared.check(sentJson(request, !declared.required));
}

function callOf(
  request: FastifyRequest,
  operation: HostOperation,
  fixedIds: Readonly<Record<string, string>>,
): HostCall {
  const params = request.params as Readonly<Record<string, string | undefined>>;
  const body = bodyOf(request, operation.body);
  return {
    request,
    id(name) {
      const value = fixedIds[name] ?? params[name];
      // The resource declares it: a missing one is a bug of the table.
      if (value === undefined) throw new Error(`the path has no {${name}}`);
      return value;
    },
    query<T>(parameter: QueryParameter<T>): T | undefined {
      return request.hostQuery?.get(parameter.name) as T | undefined;
    },
    body,
    bodyOf(declared) {
      // The table's handlers read the body their own method declares: another is a bug.
      if (declared !== operation.body) throw new Error(`${operation.operationId} declares another body`);
      return body as BodyOf<typeof declared.schema>;
    },
  };
}

/**
 * One path of the host API from its declaration (host-route-table.ts). Every method reaches it,
 * so that a known path asked with another method is a 405 with `Allow` (docs/host-api.md#errors),
 * decided in host-app.ts's onRequest hook before authentication, rather than Fastify's 404.
 */
export function registerResource(app: FastifyInstance, resource: HostResource, deps: HostRoutesDeps): void {
  const fixedIds = resource.alsoAnswers?.ids ?? {};
  const operations = answeredOperations(resource);
  const methods = Object.keys(operations) as HostMethod[];
  const query: Record<string, readonly QueryParameter<unknown>[]> = {};
  for (const method of methods) query[method] = operations[method]?.query ?? [];
  query.HEAD = query.GET ?? [];
  // Each method's status, from its declared answers: a table that declares none fails at start.
  const successes: Partial<Record<HostMethod, number>> = {};
  for (const method of methods) {
    const operation = operations[method];
    if (operation !== undefined) successes[method] = successStatusOf(operation);
  }
  const config: HostRouteConfig = {
    template: resource.path,
    allow: allowOf(resource),
    authenticated: resource.authenticated ?? true,
    parameters: resource.parameters,
    query,
  };
  app.route({
    method: [...EVERY_METHOD],
    url: routerPath(resource.path),
    config,
    handler: async (request, reply) => {
      const method = (request.method === 'HEAD' ? 'GET' : request.method) as HostMethod;
      const operation = operations[method];
      const status = successes[method];
      // host-app.ts answered 405 for the others already.
      if (operation === undefined || status === undefined)
        throw new Error(`no handler for ${request.method} ${resource.path}`);
      const answer = await operation.handle(callOf(request, operation, fixedIds), deps);
      reply.code(status);
      if ('raw' in answer) return reply.type(JSON_CONTENT_TYPE).send(answer.raw);
      return reply.send(answer.body);
    },
  });
}
