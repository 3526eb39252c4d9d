import type { AddressInfo } from 'node:net';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerFactory,
  LogController,
} from 'fastify';
import { AppError } from '../errors.js';
import { registerHealthRoute } from '../http/info-routes.js';
import { formatHost } from '../listener/api-listener.js';
import type { ConnectionDrain } from '../listener/connection-drain.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../listener/failure.js';
import { createListener, describeListenFailure } from '../listener/listener.js';
import { createRequestReport } from '../listener/request-report.js';
import type { Storage } from '../storage/storage.js';
import { registerCsvRoutes } from './csv-routes.js';
import { createFlashes } from './flash.js';
import { registerKeyRoutes } from './key-routes.js';
import { type PageDeps, sendPage } from './page-context.js';
import { pageHeaders } from './page-headers.js';
import { renderMessagePage } from './pages/layout.js';
import { registerSignInRoutes } from './sign-in-routes.js';
import { createSessions } from './sessions.js';
import { registerStaticFiles } from './static-files.js';
import { registerOAuthRoutes } from './oauth-routes.js';
import { registerWebhookRoutes } from './webhook-routes.js';

export interface AppPageConfig {
  readonly storage: Storage;
  readonly host: string;
  readonly port: number;
  /** The API listener's certificate (src/tls), or undefined for plain HTTP (--insecure-http). */
  readonly tls: { readonly cert: string; readonly key: string } | undefined;
  /** The page's address as browsers see it (--public-url), when behind a proxy. */
  readonly publicUrl: string | undefined;
  /** The diet app's page (--app-home-url), where the page's way back leads; undefined: said in words. */
  readonly appHomeUrl?: string | undefined;
  /** The API's base URL, shown in the quick start. */
  readonly apiUrl: string;
  /** `--api-public-url`: Connect's issuer when the API is reached at another address than apiUrl. */
  readonly apiPublicUrl?: string | undefined;
  /** `--app-sign-in-url`: the diet app's sign-in page, for a consent asked of a person not signed in. */
  readonly appSignInUrl?: string | undefined;
  readonly dailyLimit: number;
  readonly log: FastifyBaseLogger;
}

export interface RunningAppPage {
  /** The listener's own address, with the port actually bound. */
  readonly url: string;
  /** Its connections: the drain's deadline cuts them as it cuts the API's (serve/server-close.ts). */
  readonly connections: ConnectionDrain | undefined;
  /** Stops accepting and answers the requests in flight, as the API listener does (listener/connection-drain.ts). */
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
/** Daily counts are kept for 90 days: the page charts 30. */
const KEEP_REQUEST_DAYS = 90;

/**
 * The app page's own listener (docs/app.md#the-page-resources--export-api-csv): HTML for browsers,
 * separate from the JSON API, which refuses them. Forms only (application/x-www-form-urlencoded,
 * parsed by URLSearchParams); every response carries the page's security headers (page-headers.ts).
 */
async function buildAppPage(config: AppPageConfig, serverFactory: FastifyServerFactory): Promise<FastifyInstance> {
  const tls = config.tls;
  const app = Fastify({
    // As the API's: a request in flight at SIGTERM is answered, an idle connection closed by
    // the drain (listener/connection-drain.ts), and none is answered 503 by Fastify meanwhile.
    return503OnClosing: false,
    forceCloseConnections: false,
    loggerInstance: config.log,
    // One line per request below, without the query: a login link's token travels in it.
    logController: new LogController({ disableRequestLogging: true }),
    serverFactory,
    bodyLimit: 8 * 1024,
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8')));
  });

  const headers = pageHeaders(tls !== undefined);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
  // The same line as every listener's, without the query: a sign-in link's token travels in it.
  const report = createRequestReport({ logRequests: true, metrics: undefined, logQuery: false });
  app.addHook('onResponse', async (request, reply) => {
    report?.(request.log, request.method, request.url, reply.statusCode, reply.elapsedTime, 'page');
  });
  const signedOut = { appHome: config.appHomeUrl };
  app.setErrorHandler((error, request, reply) => {
    const status = error instanceof AppError ? error.status : (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendPage(
        reply,
        status,
        renderMessagePage('This request cannot be answered', ['Go back and try again.'], signedOut),
      );
    }
    if (error instanceof AppError && error.code === 'unavailable') {
      request.log.warn({ err: error.cause ?? error }, 'storage unavailable');
      // As every 503 of the service: when to try again (listener/failure.ts).
      return sendPage(
        reply.header('retry-after', UNAVAILABLE_RETRY_AFTER_SECONDS),
        503,
        renderMessagePage('Try again in a moment', ['The service is unavailable just now.'], signedOut),
      );
    }
    request.log.error({ err: error }, 'app page request failed');
    return sendPage(
      reply,
      500,
      renderMessagePage('Something went wrong', ['Nothing more is known. Try again later.'], signedOut),
    );
  });
  app.setNotFoundHandler((_request, reply) =>
    sendPage(
      reply,
      404,
      renderMessagePage('No such page', ['Open the app and choose Resources, then Export (API, CSV).'], signedOut),
    ),
  );

  const deps: PageDeps = {
    storage: config.storage,
    sessions: createSessions(config.storage),
    flashes: createFlashes(config.storage),
    dailyLimit: config.dailyLimit,
    apiUrl: config.apiUrl,
    tls: tls !== undefined,
    publicOrigin: config.publicUrl === undefined ? undefined : new URL(config.publicUrl).origin,
    appHomeUrl: config.appHomeUrl,
    issuer: config.apiPublicUrl ?? config.apiUrl.replace(/\/$/, ''),
    appSignInUrl: config.appSignInUrl,
  };
  registerHealthRoute(app);
  registerStaticFiles(app);
  registerSignInRoutes(app, deps);
  registerKeyRoutes(app, deps);
  registerCsvRoutes(app, deps);
  registerWebhookRoutes(app, deps);
  registerOAuthRoutes(app, deps);
  return app;
}

/** Builds and listens; prunes expired sign-ins, Connect codes and old daily counts at start and hourly. */
export async function startAppPage(config: AppPageConfig): Promise<RunningAppPage> {
  // The API's bounds on connections (handshake, stalled readers, their number), Node's parser.
  let connections: ConnectionDrain | undefined;
  const app = await buildAppPage(config, (handler) => {
    const listener = createListener(handler, { tls: config.tls });
    connections = listener.connections;
    return listener.server;
  });
  if (config.tls === undefined && config.publicUrl === undefined) {
    // Behind a TLS proxy the browser's origin is https://…, which a plain listener cannot guess.
    config.log.warn('app page on plain HTTP without --public-url: forms are accepted only from http:// origins');
  }
  async function prune(): Promise<void> {
    try {
      const now = Date.now();
      await config.storage.signIns.pruneExpiredSignIns(now);
      // Connect's codes live 60 s; each is kept a day past that, so that one presented again
      // later still revokes the key it gave (docs/connect.md#the-grant).
      await config.storage.codes.pruneAuthorizationCodes(now - DAY_MS);
      await config.storage.quota.pruneKeyRequests(Math.floor(now / DAY_MS) - KEEP_REQUEST_DAYS);
    } catch (err) {
      config.log.warn({ err }, 'could not prune expired sign-ins');
    }
  }
  await prune();
  const timer = setInterval(() => void prune(), PRUNE_EVERY_MS);
  timer.unref();
  try {
    // Fastify's own line would say http:// for the HTTPS page.
    await app.listen({
      host: config.host,
      port: config.port,
      listenTextResolver: (address) =>
        `App page listening at ${address.replace(/^http:/, config.tls === undefined ? 'http:' : 'https:')}`,
    });
  } catch (error) {
    clearInterval(timer);
    await app.close();
    throw describeListenFailure(error, config.port);
  }
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `${config.tls === undefined ? 'http' : 'https'}://${formatHost(config.host)}:${port}`,
    connections,
    async close() {
      clearInterval(timer);
      await app.close();
    },
  };
}
