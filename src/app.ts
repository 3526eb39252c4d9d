import type { Socket } from 'node:net';
import { constants as zlibConstants } from 'node:zlib';
import compress from '@fastify/compress';
import Fastify, { type FastifyInstance, type FastifyServerFactory, LogController } from 'fastify';
import { redactApiKeys } from './domain/api-key.js';
import { createCursorCodec } from './domain/cursor.js';
import type { KeyAuthenticator } from './domain/key-authenticator.js';
import { AppError } from './errors.js';
import { registerErrorHandling } from './http/error-handler.js';
import { createGatekeeper } from './http/gatekeeper.js';
import { registerInfoRoutes } from './http/info-routes.js';
import { sendError } from './http/json-response.js';
import { registerMealsRoute } from './http/meals-route.js';
import { buildOpenApiDocument } from './http/openapi.js';
import type { AuthFailureLimiter, RateLimiter, RateLimitPolicy } from './ratelimit/rate-limiter.js';
import type { Storage } from './storage/storage.js';

export interface AppDeps {
  readonly storage: Storage;
  readonly limiter: RateLimiter;
  readonly authFailures: AuthFailureLimiter;
  readonly authenticator: KeyAuthenticator;
  readonly policy: RateLimitPolicy;
  readonly tombstoneRetentionMs: number;
  /** True when the listener speaks TLS (HSTS is sent then). */
  readonly tls: boolean;
  readonly logLevel: string;
  readonly version: string;
  /** Builds the listener (server.ts: HTTPS with the contract's size and time limits). */
  readonly serverFactory?: FastifyServerFactory;
  /** Answers what the HTTP parser refuses (http/client-error.ts). */
  readonly clientErrorHandler?: (error: Error, socket: Socket) => void;
}

// Bodies over 1 KiB (1025 bytes and more) are compressed when asked (CONTRACT.md section 1); brotli at quality 4
// compresses close to gzip's best for a fraction of quality 11's CPU.
const COMPRESSION = {
  global: true,
  threshold: 1025,
  encodings: ['br', 'gzip'] as ['br', 'gzip'],
  brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } },
};

/** The public listener's Fastify instance, routes registered explicitly; server.ts listens. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: deps.logLevel,
      stream: process.stderr,
      // A key must never reach the logs, not even one sent in a query string by mistake.
      serializers: { req: (req) => ({ method: req.method, url: redactApiKeys(req.url) }) },
    },
    // One line per request, written in onResponse below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: false,
    // server.ts drains connections itself (http/connection-drain.ts): Fastify's 'idle' closing
    // would cut large answers still being sent.
    forceCloseConnections: false,
    bodyLimit: 1024,
    // No route reads request.query: /v1/meals parses its raw query itself, in the contract's
    // fault order (domain/meals-query.ts). Fastify's own parse would be wasted work per request.
    routerOptions: { querystringParser: () => ({}) },
    ...(deps.serverFactory === undefined ? {} : { serverFactory: deps.serverFactory }),
    ...(deps.clientErrorHandler === undefined ? {} : { clientErrorHandler: deps.clientErrorHandler }),
    frameworkErrors: (error, _request, reply) => {
      const status = error.statusCode ?? 400;
      if (status >= 500) reply.log.error({ err: error }, 'framework error');
      sendError(
        reply,
        status >= 500
          ? new AppError('internal_error', 'Internal server error.')
          : new AppError('bad_request', 'The request is malformed.'),
      );
    },
  });

  await app.register(compress, COMPRESSION);
  app.addHook('onRequest', createGatekeeper(deps.tls));
  // One line per request at info and below; at warn and above the hook is not registered.
  if (['info', 'debug', 'trace'].includes(deps.logLevel)) {
    app.addHook('onResponse', async (request, reply) => {
      request.log.info(
        {
          method: request.method,
          url: redactApiKeys(request.url),
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime),
        },
        'request',
      );
    });
  }
  registerErrorHandling(app);

  const secret = await deps.storage.cursorSecret();
  registerMealsRoute(app, {
    storage: deps.storage,
    authenticator: deps.authenticator,
    limiter: deps.limiter,
    authFailures: deps.authFailures,
    policy: deps.policy,
    cursors: createCursorCodec(secret),
    tombstoneRetentionMs: deps.tombstoneRetentionMs,
  });
  registerInfoRoutes(app, {
    checkReady: async () => {
      await Promise.all([deps.storage.ping(), deps.limiter.ping()]);
    },
    openApiJson: JSON.stringify(buildOpenApiDocument(deps.policy, deps.version)),
  });
  return app;
}
