import compress from '@fastify/compress';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { createCursorCodec } from './domain/cursor.js';
import type { KeyAuthenticator } from './keys/key-authenticator.js';
import { createAnswerOrder } from './http/answer-order.js';
import { BROTLI_OPTIONS, COMPRESSION_THRESHOLD, ENCODINGS } from './http/compression.js';
import type { TrustedProxies } from './listener/client-address.js';
import { jsonErrorMapping, registerErrorMapping } from './listener/error-mapping.js';
import type { ListenerKit } from './listener/listener-kit.js';
import { PUBLIC_API_WHERE } from './listener/not-found.js';
import { createFrontDoor } from './http/front-door.js';
import { connectRefusal } from './http/gatekeeper.js';
import { registerInfoRoutes } from './http/info-routes.js';
import { registerOAuthEndpoints } from './http/oauth-endpoints.js';
import { type ConnectAddresses, registerOAuthMetadata } from './http/oauth-metadata.js';
import { registerKeyEndpoint } from './http/key-endpoint.js';
import { createLargePageGate, type LargePageObserver } from './http/large-page-gate.js';
import { createMealsEndpoint } from './http/meals-endpoint.js';
import { buildOpenApiDocument } from './http/openapi.js';
import { routeOf } from './http/public-routes.js';
import { createRequestReport, type RequestMetrics, reportResponses } from './listener/request-report.js';
import type { AuthFailureLimiter, RateLimiter, RateLimitPolicy } from './ratelimit/rate-limiter.js';
import type { Storage } from './storage/storage.js';
import type { AuthFailureGuard } from './http/authenticate.js';
import { createKnownBlocks } from './ratelimit/known-blocks.js';

export interface AppDeps {
  readonly storage: Storage;
  readonly limiter: RateLimiter;
  readonly authFailures: AuthFailureLimiter;
  readonly authenticator: KeyAuthenticator;
  readonly policy: RateLimitPolicy;
  readonly logLevel: string;
  /** The process's logger (logger.ts), shared with what server.ts wires. */
  readonly log: FastifyBaseLogger;
  readonly version: string;
  /** The listener (server.ts: HTTPS with the contract's size and time limits), its connections and drain. */
  readonly listener: ListenerKit;
  /** What /metrics counts (metrics/service-metrics.ts); nothing is counted without it. */
  readonly metrics?: AppMetrics;
  /** Proxies whose X-Forwarded-For names the client (`--trust-proxy`, listener/client-address.ts). */
  readonly trustedProxies?: TrustedProxies | undefined;
  /** `--max-waiting`: long polls held at most by this process (docs/api.md#changes-as-they-happen-wait). */
  readonly maxWaiting: number;
  /** Where Connect's parts are once the app page listens (server.ts sets them): the discovery document's. */
  readonly connectAddresses?: () => ConnectAddresses | undefined;
}

export interface AppMetrics extends RequestMetrics {
  readonly largePages: LargePageObserver;
  readonly heldRequests: { count(size: () => number): void };
}

// The same compression for the routes Fastify answers as for /v1/meals (http/compression.ts).
const COMPRESSION = {
  global: true,
  threshold: COMPRESSION_THRESHOLD,
  encodings: ENCODINGS,
  brotliOptions: BROTLI_OPTIONS,
};

// Pages of more than 1000 meals share a budget of 40 000 (eight first-sync pages of 5000 at
// once, ~30 MB with their ciphertext), and hold their share for 30 s at most.
const LARGE_PAGES = { smallPageLimit: 1000, capacity: 40_000, maxHoldMs: 30_000 };

/**
 * The public listener: every request meets the front door first (http/front-door.ts), which
 * answers every refusal before authentication; /v1/meals, the hot path, is then answered by
 * http/meals-endpoint.ts straight from Node's request, and the other routes by Fastify,
 * registered explicitly. server.ts listens.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { log, listener } = deps;
  const { tls } = listener;
  const report = createRequestReport({
    logRequests: ['info', 'debug', 'trace'].includes(deps.logLevel),
    metrics: deps.metrics,
    routeOf,
  });
  const largePages = createLargePageGate(
    deps.metrics === undefined ? LARGE_PAGES : { ...LARGE_PAGES, observer: deps.metrics.largePages },
  );
  const authGuard: AuthFailureGuard = { limiter: deps.authFailures, known: createKnownBlocks() };
  const meals = createMealsEndpoint({
    feed: deps.storage.feed,
    signals: deps.storage.signals,
    maxWaiting: deps.maxWaiting,
    authenticator: deps.authenticator,
    keys: deps.storage.keys,
    limiter: deps.limiter,
    authGuard,
    trustedProxies: deps.trustedProxies,
    policy: deps.policy,
    cursors: createCursorCodec(await deps.storage.settings.cursorSecret()),
    largePages,
    tls,
    log,
    report,
  });
  // Long polls must hear every change committed once the service says it is listening.
  await meals.held.ready;
  deps.metrics?.heldRequests.count(() => meals.held.size);

  const answerOrder = createAnswerOrder();
  const errors = jsonErrorMapping(tls, PUBLIC_API_WHERE);
  const app = Fastify({
    ...listener.fastifyOptions(log, errors, {
      door: (framework) => createFrontDoor({ tls, meals: meals.listener, framework, log, report, answerOrder }),
      bare: { tls, log, report, connectRefusal },
      // The parser's refusals wait for the connection's answers in flight (http/answer-order.ts).
      afterAnswers: (socket, answer) => answerOrder.afterAnswers(socket, answer),
    }),
    bodyLimit: 1024,
    // No route reads request.query: /v1/meals parses its raw query itself, in the contract's
    // fault order (http/meals-query.ts). Fastify's own parse would be wasted work per request.
    routerOptions: { querystringParser: () => ({}) },
  });

  await app.register(compress, COMPRESSION);
  // One line and one count per request; the route's label is found from the URL (public-routes.ts).
  reportResponses(app, report);
  // The not-found handler is reached only when the front door let a request through that no route answers.
  registerErrorMapping(app, errors);
  // SIGTERM (serve/server-close.ts closes the app): every held long poll is answered at once with its page
  // as it stands, then the drain sends those answers in full like any other in flight
  // (docs/api.md#changes-as-they-happen-wait). Not awaited: the listener stops accepting meanwhile.
  app.addHook('preClose', (done) => {
    void meals.held.releaseAll();
    done();
  });

  registerKeyEndpoint(app, {
    authenticator: deps.authenticator,
    limiter: deps.limiter,
    authGuard,
    trustedProxies: deps.trustedProxies,
    policy: deps.policy,
  });
  registerOAuthMetadata(app, deps.connectAddresses ?? (() => undefined));
  await registerOAuthEndpoints(app, { storage: deps.storage, authGuard, trustedProxies: deps.trustedProxies });
  registerInfoRoutes(app, {
    checkReady: async () => {
      await Promise.all([deps.storage.ping(), deps.limiter.ping()]);
    },
    openApiJson: JSON.stringify(buildOpenApiDocument(deps.version)),
  });
  return app;
}
