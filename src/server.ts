import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { createKeyAuthenticator } from './domain/key-authenticator.js';
import { tombstonePruneCutoff } from './domain/tombstone-retention.js';
import { createClientErrorHandler } from './http/client-error.js';
import { type ConnectionDrain, trackConnections } from './http/connection-drain.js';
import { createLogger } from './logger.js';
import { NO_LIMITER_OBSERVER } from './ratelimit/limiter-observer.js';
import { createInProcessLimiters, type LimiterSet } from './ratelimit/limiter-set.js';
import type { RateLimitPolicy } from './ratelimit/rate-limiter.js';
import { createSharedLimiters } from './ratelimit/shared-limiters.js';
import { openStorage } from './storage/open-storage.js';
import { loadTlsMaterial } from './tls/certificate.js';
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
  /** The shared limiter store (`--redis`); in-process limiters when undefined. */
  readonly redisUrl: string | undefined;
  /** Every Redis key under this prefix (`--redis-prefix`). */
  readonly redisPrefix: string;
  /** The app page's listener (issue 11, src/web): off when undefined; 0 picks a free port. */
  readonly appPort?: number | undefined;
  /** The app page's address as browsers see it, when behind a proxy. */
  readonly publicUrl?: string | undefined;
}

export interface RunningServer {
  /** `https://HOST:PORT` (or http:// with insecureHttp), with the port actually bound. */
  readonly url: string;
  readonly app: FastifyInstance;
  /** The app page's own address, when it runs (`--app-port`). */
  readonly appUrl: string | undefined;
  /** Stops accepting, finishes the responses in flight (up to 30 s), releases everything. */
  close(): Promise<void>;
}

const KEY_USE_FLUSH_MS = 5_000;
const PRUNE_EVERY_MS = 3_600_000;
const DRAIN_TIMEOUT_MS = 30_000;

// Node's parser limit is set above the contract's 16 KiB so that the gatekeeper, not the
// parser, answers most oversized requests with the right status (414 or 431).
const SERVER_LIMITS = {
  maxHeaderSize: 64 * 1024,
  headersTimeout: 10_000, // CONTRACT.md section 1: headers within 10 s,
  requestTimeout: 30_000, // the whole request within 30 s,
  connectionsCheckingInterval: 1_000, // checked every second, not every 30 s (Node's default).
};

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The limiters: shared in Redis when configured (each instance falling back to its own while
 * Redis does not answer, CONTRACT.md section 4), otherwise in this process.
 */
function openLimiters(config: ServeConfig, policy: RateLimitPolicy, log: Logger): Promise<LimiterSet> {
  if (config.redisUrl === undefined) {
    return Promise.resolve(createInProcessLimiters({ policy, observer: NO_LIMITER_OBSERVER }));
  }
  return createSharedLimiters({ url: config.redisUrl, prefix: config.redisPrefix, policy, log });
}

/** Wiring: config -> storage -> limiters -> TLS -> app -> listen. */
export async function startServer(config: ServeConfig): Promise<RunningServer> {
  const version = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
  const storage = await openStorage(config.database);
  const tlsMaterial = config.insecureHttp
    ? undefined
    : await loadTlsMaterial({
        dataDir: config.dataDir,
        host: config.host,
        certFile: config.tlsCertFile,
        keyFile: config.tlsKeyFile,
      });
  const tls = tlsMaterial !== undefined;
  const policy = { minIntervalMs: config.minIntervalMs, dailyLimit: config.dailyLimit };
  const log = createLogger(config.logLevel);
  const limiters = await openLimiters(config, policy, log);
  const { limiter, authFailures } = limiters;
  const authenticator = createKeyAuthenticator(storage);

  let connections: ConnectionDrain | undefined;
  const serverFactory: FastifyServerFactory = (handler) => {
    const server =
      tlsMaterial === undefined
        ? http.createServer(SERVER_LIMITS, handler)
        : https.createServer(
            { ...SERVER_LIMITS, cert: tlsMaterial.cert, key: tlsMaterial.key, minVersion: 'TLSv1.2' },
            handler,
          );
    connections = trackConnections(server, tls);
    return server;
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
  });
  if (tlsMaterial === undefined) {
    app.log.warn('serving plain HTTP (--insecure-http): only behind a proxy that terminates TLS');
  } else {
    app.log.info(
      { fingerprint256: tlsMaterial.fingerprint256, source: tlsMaterial.source, certificate: tlsMaterial.certPath },
      'TLS certificate',
    );
  }

  const maintenance = [
    setInterval(() => {
      authenticator.flushUses().catch((err: unknown) => app.log.warn({ err }, 'could not record key use'));
    }, KEY_USE_FLUSH_MS),
    setInterval(() => void prune(), PRUNE_EVERY_MS),
  ];
  for (const timer of maintenance) timer.unref();
  async function prune(): Promise<void> {
    try {
      const removed = await storage.pruneTombstones(tombstonePruneCutoff(Date.now(), config.tombstoneDays));
      if (removed > 0) app.log.info({ removed }, 'pruned tombstones');
    } catch (err) {
      app.log.warn({ err }, 'could not prune tombstones');
    }
  }
  await prune();

  await app.listen({
    host: config.host,
    port: config.port,
    listenTextResolver: (address) => `Server listening at ${address.replace(/^http:/, tls ? 'https:' : 'http:')}`,
  });
  const { port } = app.server.address() as AddressInfo;
  const url = `${tls ? 'https' : 'http'}://${formatHost(config.host)}:${port}`;

  // The app page: its own listener beside the API, on the same store and certificate.
  let appPage: RunningAppPage | undefined;
  if (config.appPort !== undefined) {
    appPage = await startAppPage({
      storage,
      host: config.host,
      port: config.appPort,
      tls: tlsMaterial,
      publicUrl: config.publicUrl,
      apiUrl: url,
      dailyLimit: config.dailyLimit,
      log: app.log,
    });
    app.log.info({ url: appPage.url, publicUrl: config.publicUrl }, 'app page listening');
  }

  return {
    url,
    app,
    appUrl: appPage?.url,
    async close() {
      for (const timer of maintenance) clearInterval(timer);
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
      await authenticator.flushUses().catch((err: unknown) => app.log.warn({ err }, 'could not record key use'));
      await limiters.close();
      await storage.close();
    },
  };
}
