import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { registerHealthRoute } from '../http/info-routes.js';
import type { ConnectionDrain } from '../listener/connection-drain.js';
import { registerErrorMapping } from '../listener/error-mapping.js';
import { createListenerKit, type ListenerKit } from '../listener/listener-kit.js';
import { createRequestReport, reportResponses } from '../listener/request-report.js';
import type { Storage } from '../storage/storage.js';
import { registerCsvRoutes } from './csv-routes.js';
import { createFlashes } from './flash.js';
import { registerKeyRoutes } from './key-routes.js';
import type { PageDeps } from './page-context.js';
import { pageErrorMapping } from './page-errors.js';
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
async function buildAppPage(config: AppPageConfig, listener: ListenerKit): Promise<FastifyInstance> {
  const tls = config.tls;
  const errors = pageErrorMapping(listener.tls, config.appHomeUrl);
  const app = Fastify({ ...listener.fastifyOptions(config.log, errors), bodyLimit: 8 * 1024 });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8')));
  });

  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(errors.headers);
    done();
  });
  // The same line as every listener's, without the query: a sign-in link's token travels in it.
  reportResponses(app, createRequestReport({ logRequests: true, metrics: undefined, logQuery: false }), () => ({
    route: 'page',
  }));
  registerErrorMapping(app, errors);

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
  const listener = createListenerKit({ tls: config.tls, json: false });
  const app = await buildAppPage(config, listener);
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
  let url: string;
  try {
    url = await listener.listen(app, config.host, config.port, 'App page listening');
  } catch (error) {
    clearInterval(timer);
    await app.close();
    throw error;
  }
  return {
    url,
    connections: listener.connections(),
    async close() {
      clearInterval(timer);
      await app.close();
    },
  };
}
