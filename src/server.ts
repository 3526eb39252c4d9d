import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance, FastifyServerFactory } from 'fastify';
import { buildApp } from './app.js';
import { createKeyAuthenticator } from './keys/key-authenticator.js';
import { createClientErrorHandler } from './http/client-error.js';
import type { TrustedProxies } from './http/client-address.js';
import type { ConnectionDrain } from './http/connection-drain.js';
import { MAX_CONNECTIONS } from './http/connection-limits.js';
import { createListener, describeListenFailure } from './http/listener.js';
import { startKeyUseFlush } from './key-use-flush.js';
import { createStartupLogger } from './logger.js';
import type { ServiceMetrics } from './metrics/service-metrics.js';
import { createTimedStorage } from './metrics/timed-storage.js';
import { NO_LIMITER_OBSERVER } from './ratelimit/limiter-observer.js';
import { createInProcessLimiters, type Limiters, type LimiterSet, limiterSetOf } from './ratelimit/limiter-set.js';
import type { RateLimitPolicy } from './ratelimit/rate-limiter.js';
import { createSharedLimiters } from './ratelimit/shared-limiters.js';
import { loadUsedQuota } from './ratelimit/used-quota.js';
import { redactedUrl } from './config.js';
import { describeStore, openStorage } from './storage/open-storage.js';
import type { Storage } from './storage/storage.js';
import { loadTlsMaterial, type TlsMaterial } from './tls/certificate.js';
import { startTombstonePruning } from './tombstone-pruning.js';
import { PACKAGE_VERSION } from './version.js';
import { startWebhooks, type WebhookSettings } from './webhooks/webhook-service.js';
import { type RunningAppPage, startAppPage } from './web/app-page.js';

export interface ServeConfig {
  readonly database: string;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly tlsCertFile: string | undefined;
  readonly tlsKeyFile: string | undefined;
  readonly insecureHttp: boolean;
  readonly minIntervalMs: number;
  readonly dailyLimit: number;
  readonly tombstoneDays: number;
  readonly logLevel: string;
  /** The admin listener's port (`/metrics`); undefined: none, and nothing is counted. */
  readonly adminPort: number | undefined;
  /** Processes serving the public port: 1 is this process alone; more, a node:cluster (cluster/). */
  readonly workers: number;
  /** The shared limiter store (`--redis`); in-process limiters when undefined. */
  readonly redisUrl: string | undefined;
  /** Every Redis key under this prefix (`--redis-prefix`). */
  readonly redisPrefix: string;
  /** The app page's listener (issue 11, src/web): off when undefined; 0 picks a free port. */
  readonly appPort?: number | undefined;
  /** The app page's address as browsers see it, when behind a proxy. */
  readonly publicUrl?: string | undefined;
  /** `--trust-proxy`: proxies whose X-Forwarded-For names the client (http/client-address.ts). */
  readonly trustedProxies?: TrustedProxies | undefined;
  /** `--max-waiting`: long polls (`wait`) held at most by each serving process. */
  readonly maxWaiting: number;
  /** `--webhook-allow-private`, `--webhook-ca`: where webhook calls may go (webhooks/webhook-service.ts). */
  readonly webhooks: WebhookSettings;
}

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
   * writes meals through the same handle (host/meal-host.ts createMealHost over it): those
   * writes wake held long polls as they commit (on SQLite, not at the next 100 ms look for
   * other processes' commits: storage/feed-signals.ts), and the process holds one store, not
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
}

export interface RunningServer {
  /** `https://HOST:PORT` (or http:// with insecureHttp), with the port actually bound. */
  readonly url: string;
  readonly app: FastifyInstance;
  /** The app page's address (`https://HOST:PORT`) when `appPort` is set. */
  readonly appUrl: string | undefined;
  /** Stops accepting, finishes the responses in flight (up to 30 s), releases everything. */
  close(): Promise<void>;
  /** Writes the log lines held while starting, and every later one (with `holdLogs`). */
  releaseLogs(): void;
  /** Drops them, and every later one: the start failed after all (with `holdLogs`). */
  discardLogs(): void;
}

const DRAIN_TIMEOUT_MS = 30_000;

// Node's parser limit is set above the contract's 16 KiB so that the gatekeeper, not the
// parser, answers most oversized requests with the right status (414 or 431); a missing Host
// is answered as JSON by http/front-door.ts too.
const API_PARSER = { maxHeaderSize: 64 * 1024, requireHostHeader: false };

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Says how the public listener speaks: the certificate's fingerprint, or a warning for plain HTTP. */
export function logTransport(log: FastifyBaseLogger, tlsMaterial: TlsMaterial | undefined): void {
  if (tlsMaterial === undefined) {
    log.warn('serving plain HTTP (--insecure-http): only behind a proxy that terminates TLS');
  } else {
    log.info(
      { fingerprint256: tlsMaterial.fingerprint256, source: tlsMaterial.source, certificate: tlsMaterial.certPath },
      'TLS certificate',
    );
  }
}

/**
 * Says at start which store and which limiter this instance uses (issue 17, item 2), never a
 * password: a PostgreSQL or Redis URL is logged without it. `storeKind`, for a store the caller
 * opened (ServerOptions.storage), whose location is not known here.
 */
export function logStoreAndLimiter(
  log: FastifyBaseLogger,
  config: ServeConfig,
  workersLimit: 'own' | 'primary' = 'own',
  storeKind?: Storage['kind'],
): void {
  const store = storeKind === undefined ? describeStore(config.database) : `a ${storeKind} store opened by the caller`;
  const limiter =
    config.redisUrl !== undefined
      ? `redis ${redactedUrl(config.redisUrl)} (keys under ${config.redisPrefix})`
      : workersLimit === 'primary'
        ? "in-process, the cluster primary's, shared by every worker"
        : 'in-process';
  log.info({ store, limiter }, `store ${store}, limiter ${limiter}`);
}

/**
 * The origin `users login-link` puts in its links (Storage.appPageOrigin): `--public-url`, else
 * the page's own address, with a wildcard host (0.0.0.0, ::) made the loopback one a browser on
 * this host can open.
 */
export function appPageOrigin(pageUrl: string, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) return new URL(publicUrl).origin;
  const url = new URL(pageUrl);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  else if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.origin;
}

/** The certificate of the public listener (made on first start), or undefined for plain HTTP. */
export async function loadServeTls(config: ServeConfig): Promise<TlsMaterial | undefined> {
  if (config.insecureHttp) return undefined;
  return loadTlsMaterial({
    dataDir: config.dataDir,
    host: config.host,
    certFile: config.tlsCertFile,
    keyFile: config.tlsKeyFile,
  });
}

/**
 * This process's limiters, each decision reported to /metrics when it is counted:
 * - with Redis, the shared ones (each instance falling back to its own while Redis does not
 *   answer, CONTRACT.md section 4), which report their own decisions and fallbacks;
 * - in a cluster worker without Redis, its client of the primary's (exact across workers);
 * - otherwise this process's own, resuming each key's day from the store (used-quota.ts).
 */
async function openLimiters(
  config: ServeConfig,
  policy: RateLimitPolicy,
  log: FastifyBaseLogger,
  storage: Storage,
  options: ServerOptions,
): Promise<LimiterSet> {
  const observer = options.metrics?.limiters ?? NO_LIMITER_OBSERVER;
  if (config.redisUrl !== undefined) {
    return createSharedLimiters({ url: config.redisUrl, prefix: config.redisPrefix, policy, log, observer });
  }
  const primary = options.clusterWorker?.limiters;
  if (primary !== undefined) return limiterSetOf(primary, observer);
  return createInProcessLimiters({ policy, observer, used: await loadUsedQuota(storage.quota, policy, Date.now()) });
}

/** Wiring: config -> storage -> limiters -> TLS -> app -> listen. */
export async function startServer(config: ServeConfig, options: ServerOptions = {}): Promise<RunningServer> {
  const version = PACKAGE_VERSION;
  const opened = options.storage ?? (await openStorage(config.database, { serving: true }));
  const storage = options.metrics === undefined ? opened : createTimedStorage(opened, options.metrics.storageQuery);
  const tlsMaterial = await loadServeTls(config);
  const tls = tlsMaterial !== undefined;
  const policy = { minIntervalMs: config.minIntervalMs, dailyLimit: config.dailyLimit };
  // Held until every listener is bound: a port in use is then the command's one line.
  const startupLog = createStartupLogger(config.logLevel);
  const log = startupLog.log;
  const limiters = await openLimiters(config, policy, log, storage, options);
  const { limiter, authFailures } = limiters;
  const authenticator = createKeyAuthenticator(storage);

  let connections: ConnectionDrain | undefined;
  const serverFactory: FastifyServerFactory = (handler) => {
    const listener = createListener(handler, {
      tls: tlsMaterial,
      parser: API_PARSER,
      // Held long polls keep their connections: they get places of their own (connection-limits.ts).
      maxConnections: MAX_CONNECTIONS + config.maxWaiting,
    });
    connections = listener.connections;
    return listener.server;
  };

  const app = await buildApp({
    storage,
    limiter,
    authFailures,
    authenticator,
    policy,
    tls,
    logLevel: config.logLevel,
    log,
    version,
    serverFactory,
    clientErrorHandler: createClientErrorHandler(tls),
    trustedProxies: config.trustedProxies,
    maxWaiting: config.maxWaiting,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
  });
  if (options.clusterWorker === undefined) {
    logStoreAndLimiter(app.log, config, 'own', options.storage?.kind);
    logTransport(app.log, tlsMaterial);
    if (config.trustedProxies !== undefined) {
      app.log.info(
        { trustedProxies: config.trustedProxies.list },
        'client addresses read from X-Forwarded-For behind these proxies',
      );
    }
  }

  // Every 5 s and on close: the counts a restarted limiter resumes from (CONTRACT.md section 4).
  const keyUseFlush = startKeyUseFlush(authenticator, app.log);
  // In a cluster the primary prunes, once for all workers (cluster/primary.ts).
  const stopPruning =
    options.clusterWorker === undefined
      ? await startTombstonePruning(storage, config.tombstoneDays, app.log)
      : () => {};
  // And sends the webhooks: one sender per instance (its store's leases share the work out).
  const webhooks =
    options.clusterWorker === undefined
      ? startWebhooks(storage, config.webhooks, { log: app.log, version, metrics: options.metrics?.webhooks() })
      : undefined;

  try {
    await app.listen({
      host: config.host,
      port: config.port,
      listenTextResolver: (address) => `Server listening at ${address.replace(/^http:/, tls ? 'https:' : 'http:')}`,
    });
  } catch (error) {
    startupLog.discard();
    throw describeListenFailure(error, config.port);
  }
  const { port } = app.server.address() as AddressInfo;
  const url = `${tls ? 'https' : 'http'}://${formatHost(config.host)}:${port}`;

  let appPage: RunningAppPage | undefined;
  /** Stops accepting, finishes the responses in flight (up to 30 s), releases everything. */
  async function close(): Promise<void> {
    stopPruning();
    const webhooksStopped = webhooks?.stop();
    // server.close() drains through the server's closeIdleConnections (http/connection-drain.ts).
    const drained = app.close();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => resolve('deadline'), DRAIN_TIMEOUT_MS);
    });
    if ((await Promise.race([drained, deadline])) === 'deadline') {
      app.log.warn('responses still in flight after 30 s: closing their connections');
      connections?.destroyAll();
      await drained;
    }
    clearTimeout(timer);
    await appPage?.close();
    await webhooksStopped;
    // After the last response: every accepted request is in the store before the process ends.
    await keyUseFlush.stop();
    await limiters.close();
    // A store the caller opened is the caller's to close (its other users may still write).
    if (options.storage === undefined) await storage.close();
  }

  // The app page: its own listener beside the API, on the same store and certificate.
  if (config.appPort !== undefined) {
    const starting = startAppPage({
      storage,
      host: config.host,
      port: config.appPort,
      tls: tlsMaterial,
      publicUrl: config.publicUrl,
      apiUrl: url,
      dailyLimit: config.dailyLimit,
      log: app.log,
    });
    // A page that cannot start (its port in use) fails the command: everything opened above
    // is released first, or its timers and connections would keep the process alive.
    try {
      appPage = await starting;
    } catch (error) {
      startupLog.discard();
      await close();
      throw error;
    }
    // Where `users login-link` points its links from now on (issue 17, item 3).
    const origin = appPageOrigin(appPage.url, config.publicUrl);
    try {
      await storage.settings.recordAppPageOrigin(origin);
    } catch (err) {
      app.log.warn({ err }, 'could not record the app page address: users login-link needs --public-url');
    }
    app.log.info({ url: appPage.url, publicUrl: config.publicUrl, loginLinks: origin }, 'app page listening');
  }

  if (options.holdLogs !== true) startupLog.release();
  return {
    url,
    app,
    appUrl: appPage?.url,
    close,
    releaseLogs: () => startupLog.release(),
    discardLogs: () => startupLog.discard(),
  };
}
