import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { dropRestAfterAnswer, guardedBody, hasBody } from '../listener/body-guard.js';
import { type ErrorMapping, jsonErrorMapping, registerErrorMapping } from '../listener/error-mapping.js';
import { transportRefusal } from '../http/gatekeeper.js';
import { commonHeaders } from '../listener/json-response.js';
import type { ListenerKit } from '../listener/listener-kit.js';
import { HOST_API_WHERE, noSuchResource } from '../listener/not-found.js';
import { createRequestReport, type RequestMetrics, reportResponses } from '../listener/request-report.js';
import { authenticateService, type HostAuthentication } from './host-auth.js';
import { isImportBody, MAX_IMPORT_BYTES, MAX_JSON_BODY_BYTES, registerBodyParsers } from './host-body.js';
import { endJsonAnswersWithNewline } from './host-json-line.js';
import { checkPathAndQuery, refusedPathId } from './host-paths.js';
import type { HostRouteConfig } from './host-resource.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The id of the service token that authenticated the request, for its log line. */
    serviceTokenId: string | undefined;
    /** The query's parameters, read by the route's declarations before the body is read. */
    hostQuery: ReadonlyMap<string, unknown> | undefined;
  }
}

export interface HostAppDeps {
  readonly auth: HostAuthentication;
  readonly log: FastifyBaseLogger;
  /** One log line per request (info level and below). */
  readonly logRequests: boolean;
  /** What /metrics counts of the host API (metrics/service-metrics.ts). */
  readonly metrics: RequestMetrics | undefined;
  /** The listener (host-listener.ts): the public one's server, connections and drain. */
  readonly listener: ListenerKit;
  /** Registers the routes (host-routes.ts). */
  readonly routes: (app: FastifyInstance) => void;
}

/** A path the host API has no route for: where its routes are. */
const notFound = () => noSuchResource(HOST_API_WHERE);

/** The host API is for the app's back end: a browser never holds a service token. */
const forBrowsers = () =>
  new AppError('browser_forbidden', "The host API is not for browsers: call it from the app's back end.");

function routeConfig(request: FastifyRequest): HostRouteConfig | undefined {
  const config = request.routeOptions.config as Partial<HostRouteConfig> | undefined;
  return config?.template === undefined ? undefined : (config as HostRouteConfig);
}

/**
 * The first refusal before the handler, in the public listener's order (docs/host-api.md#errors):
 * request size, OPTIONS, route, method, Origin, then the service token.
 */
async function guardRequest(request: FastifyRequest, deps: HostAppDeps): Promise<void> {
  const transport = transportRefusal(request.raw);
  if (transport !== undefined) throw transport;
  if (request.method === 'OPTIONS') throw forBrowsers();
  const route = routeConfig(request);
  if (route === undefined) throw notFound();
  if (!route.allow.includes(request.method)) {
    throw new AppError('method_not_allowed', `${request.method} is not allowed here.`, {
      headers: { allow: route.allow.join(', ') },
    });
  }
  if (request.headers.origin !== undefined) throw forBrowsers();
  if (!route.authenticated) return;
  const token = await authenticateService(request.raw, deps.auth, Date.now());
  request.serviceTokenId = token.id;
}

/**
 * The host API's errors: the public listener's JSON and mapping (listener/error-mapping.ts),
 * its own `where`, its sizes and path ids before the framework's refusal, and its bodies'
 * 413, after which the rest of the body is read and dropped.
 */
const hostErrors = (tls: boolean): ErrorMapping =>
  jsonErrorMapping(tls, HOST_API_WHERE, {
    notFound: (request) => (request.method === 'OPTIONS' ? forBrowsers() : notFound()),
    beforeFramework: (request) => transportRefusal(request.raw) ?? refusedPathId(request.url),
    refine(error, request, reply) {
      if (error.code !== 'FST_ERR_CTP_BODY_TOO_LARGE' && !(error instanceof AppError && error.status === 413)) {
        return error;
      }
      // So that a client still sending reads the answer: the rest is read and dropped after it.
      reply.removeHeader('connection');
      dropRestAfterAnswer(request.raw, reply.raw, isImportBody(request) ? MAX_IMPORT_BYTES : MAX_JSON_BODY_BYTES);
      return error instanceof AppError
        ? error
        : new AppError('request_too_large', 'The body is larger than 1 MiB.', { status: 413 });
    },
  });

/**
 * The host API's Fastify instance (docs/host-api.md): JSON in and out, every answer
 * `Cache-Control: no-store`, every error of the public shape. Its listener (host-listener.ts)
 * shares no route with the public one: each answers the other's paths 404.
 */
export async function buildHostApp(deps: HostAppDeps): Promise<FastifyInstance> {
  const { log, listener } = deps;
  const { tls } = listener;
  const errors = hostErrors(tls);
  const report = createRequestReport({ logRequests: deps.logRequests, metrics: deps.metrics, message: 'host request' });
  const app = Fastify({
    ...listener.fastifyOptions(log, errors, {
      // CONNECT is no method of a route: refused as a path none has, after the sizes.
      bare: {
        tls,
        log,
        report,
        connectRefusal: (request) => transportRefusal(request) ?? notFound(),
      },
    }),
    bodyLimit: MAX_JSON_BODY_BYTES,
    // A path id is up to 200 characters, each up to 12 when percent-encoded (4 UTF-8 bytes):
    // the router's default of 100 would refuse good ids.
    routerOptions: { maxParamLength: 200 * 12 },
    // HEAD is registered beside GET by host-resource.ts, with every other method.
    exposeHeadRoutes: false,
  });
  app.decorateRequest('serviceTokenId', undefined);
  app.decorateRequest('hostQuery', undefined);
  registerBodyParsers(app);
  endJsonAnswersWithNewline(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.headers(commonHeaders(tls));
    await guardRequest(request, deps);
  });
  // After the token, before the body (docs/host-api.md#errors): the path's ids and the query.
  app.addHook('preParsing', async (request, _reply, payload) => {
    const route = routeConfig(request);
    if (route !== undefined) {
      request.hostQuery = checkPathAndQuery(request, route.parameters, route.query[request.method] ?? []);
    }
    return hasBody(request.raw) ? guardedBody(request.raw, payload, isImportBody(request)) : payload;
  });
  reportResponses(app, report, (request) => {
    const route = routeConfig(request);
    return {
      route: route === undefined ? 'other' : `${request.method} ${route.template}`,
      extra: { token: request.serviceTokenId ?? null },
    };
  });
  registerErrorMapping(app, errors);
  deps.routes(app);
  return app;
}
