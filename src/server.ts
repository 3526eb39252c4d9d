import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { startBackgroundJobs } from './serve/background-jobs.js';
import { createKeyAuthenticator } from './keys/key-authenticator.js';
import { MAX_CONNECTIONS } from './listener/connection-limits.js';
import { createListenerKit } from './listener/listener-kit.js';
import { createStartupLogger, type LogDestination } from './logger.js';
import type { ServiceMetrics } from './metrics/service-metrics.js';
import { createTimedStorage } from './metrics/timed-storage.js';
import { NO_LIMITER_OBSERVER } from './ratelimit/limiter-observer.js';
import type { Limiters } from './ratelimit/limiter-set.js';
import { appPageOrigin, startServedAppPage } from './serve/app-page-listener.js';
import { startServedHostApi } from './serve/host-api-listener.js';
import type { RunningHostApi } from './host-api/host-listener.js';
import type { ServeConfig } from './serve/serve-config.js';
import { openServeLimiters } from './serve/serve-limiters.js';
import { loadServeTls } from './serve/serve-tls.js';
import { closeServer } from './serve/server-close.js';
import { logServing } from './serve/start-log.js';
import { openStorage } from './storage/open-storage.js';
import type { Storage } from './storage/storage.js';
import type { TlsMaterial } from './tls/certificate.js';
import { PACKAGE_VERSION } from './version.js';
import type { RunningAppPage } from './web/app-page.js';
import { AUTHORIZE_PATH } from './web/oauth-routes.js';
import type { ConnectAddresses } from './http/oauth-metadata.js';

/** How this process serves: alone (the default), or as one worker of a cluster. */
export interface ServerOptions {
  /** What /metrics counts in this process; undefined when there is no admin listener. */
  readonly metrics?: ServiceMetrics;
  /**
   * Set in a cluster worker: the primary has logged the certificate and prunes tombstones.
   * `limiters`: the worker's client of the primary's (cluster/worker.ts), when there is no
   * Redis; with Redis every worker decides there itself.
   */
  readonly clusterWorker?: { readonly limiters?: Limiters | undefined };
  /**
   * Serve on a store the caller opened (then `config.database` is not read), and that the
   * caller closes after close(). For a back end that runs the API in its own process and
   * writes meals through the same handle (meal-host/meal-host.ts createMealHost over it): those
   * writes wake held long polls as they commit (on SQLite, not at the next 100 ms look for
   * other processes' commits: storage/change-signals.ts), and the process holds one store, not
   * two. The benchmark's in-process long-poll latency is measured this way. Open it with
   * `{ serving: true }`, as serve does, so that background writes never block the event loop.
   */
  readonly storage?: Storage;
  /**
   * Keep the log lines held after start (logger.ts createStartupLogger) until the caller, which
   * binds more listeners (serve's admin port), calls `releaseLogs`. Otherwise they are written
   * once every listener of startServer is bound.
   */
  readonly holdLogs?: boolean;
  /** Where the log lines go: stderr by default; a process that embeds the service may keep its own. */
  readonly logDestination?: LogDestination;
}

export interface RunningServer {
  /** `https://HOST:PORT` (or http:// with insecureHttp), with the port actually bound. */
  readonly url: string;
  readonly app: FastifyInstance;
  /** The app page's address (`https://HOST:PORT`) when `appPort` is set. */
  readonly appUrl: string | undefined;
  /** The host API's address when `hostApiPort` is set. */
  readonly hostApiUrl: string | undefined;
  /** Stops accepting, finishes the responses in flight (up to 30 s), releases everything. */
  close(): Promise<void>;
  /** Writes the log lines held while starting, and every later one (with `holdLogs`). */
  releaseLogs(): void;
  /** Drops them, and every later one: the start failed after all (with `holdLogs`). */
  discardLogs(): void;
}

/** Wiring: config -> storage -> limiters -> TLS -> app -> listen; graceful close. */
export async function startServer(config: ServeConfig, options: ServerOptions = {}): Promise<RunningServer> {
  const version = PACKAGE_VERSION;
  const policy = { minIntervalMs: config.minIntervalMs, dailyLimit: config.dailyLimit };
  const clusterWorker = options.clusterWorker !== undefined;

  // Held until every listener is bound: a port in use is then the command's one line.
  const startupLog = createStartupLogger(config.logLevel, options.logDestination);
  const log = startupLog.log;
  const opened =
    options.storage ??
    (await openStorage(config.database, { serving: true, directDatabase: config.directDatabase, log }));
  const storage = options.metrics === undefined ? opened : createTimedStorage(opened, options.metrics.storageQuery);
  const observer = options.metrics?.limiters ?? NO_LIMITER_OBSERVER;
  const limiters = await openServeLimiters(config, policy, log, storage, observer, options.clusterWorker?.limiters);
  const { limiter, authFailures } = limiters;
  const authenticator = createKeyAuthenticator(storage);

  let tlsMaterial: TlsMaterial | undefined;
  try {
    tlsMaterial = await loadServeTls(config);
  } catch (error) {
    // A certificate that cannot be read or made fails the start: the limiters go first, or a
    // Redis connection would keep the process alive.
    await limiters.close();
    throw error;
  }

  // Held long polls keep their connections: they get places of their own (connection-limits.ts).
  const maxConnections = MAX_CONNECTIONS + config.maxWaiting;
  const listener = createListenerKit({ tls: tlsMaterial, json: true, maxConnections });
  // Connect's discovery document names the app page's address, known once it listens.
  let connect: ConnectAddresses | undefined;
  const app = await buildApp({
    connectAddresses: () => connect,
    storage,
    limiter,
    authFailures,
    authenticator,
    policy,
    logLevel: config.logLevel,
    log,
    version,
    listener,
    trustedProxies: config.trustedProxies,
    maxWaiting: config.maxWaiting,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
  });
  if (!clusterWorker) logServing(app.log, config, tlsMaterial, options.storage?.kind);
  const jobs = await startBackgroundJobs(storage, authenticator, config, {
    log: app.log,
    version,
    metrics: options.metrics,
    clusterWorker,
  });

  let url: string;
  try {
    url = await listener.listen(app, config.host, config.port);
  } catch (error) {
    startupLog.discard();
    throw error;
  }

  let appPage: RunningAppPage | undefined;
  let hostApi: RunningHostApi | undefined;
  const ownsStorage = options.storage === undefined;
  const close = () =>
    closeServer({ app, connections: listener.connections(), appPage, hostApi, jobs, limiters, storage, ownsStorage });
  if (config.appPort !== undefined) {
    const page = { config, port: config.appPort, storage, tlsMaterial, apiUrl: url, log: app.log };
    // A page that cannot start (its port in use) fails the command: everything opened above
    // is released first, or its timers and connections would keep the process alive.
    try {
      appPage = await startServedAppPage(page);
      connect = {
        issuer: config.apiPublicUrl ?? url.replace(/\/$/, ''),
        authorizationEndpoint: `${appPageOrigin(appPage.url, config.publicUrl)}${AUTHORIZE_PATH}`,
      };
    } catch (error) {
      startupLog.discard();
      await close();
      throw error;
    }
  }

  if (config.hostApiPort !== undefined) {
    const { metrics } = options;
    const served = { config, port: config.hostApiPort, storage, ownsStorage, tlsMaterial, authFailures, log: app.log };
    try {
      hostApi = await startServedHostApi({ ...served, metrics, version });
    } catch (error) {
      startupLog.discard();
      await close();
      throw error;
    }
  }

  if (options.holdLogs !== true) startupLog.release();
  return {
    url,
    app,
    appUrl: appPage?.url,
    hostApiUrl: hostApi?.url,
    close,
    releaseLogs: () => startupLog.release(),
    discardLogs: () => startupLog.discard(),
  };
}
