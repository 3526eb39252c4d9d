import cluster from 'node:cluster';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { runClusterPrimary } from '../cluster/primary.js';
import { runClusterWorker } from '../cluster/worker.js';
import { resolveDirectDatabase } from '../config.js';
import { CliError } from '../errors.js';
import { type AdminListener, startAdminListener } from '../metrics/admin-listener.js';
import { scrapeRegistry } from '../metrics/cluster-metrics.js';
import { createServiceMetrics } from '../metrics/service-metrics.js';
import { DEFAULT_REDIS_PREFIX } from '../ratelimit/redis-keys.js';
import type { ServeConfig } from '../serve/serve-config.js';
import { startServer } from '../server.js';
import { isPostgresUrl } from '../storage/open-storage.js';
import { listenForStopSignal, type StopSignal } from '../stop-signal.js';
import { parseTrustedProxies, type TrustedProxies } from '../listener/client-address.js';
import {
  parseCommandArgs,
  parseIntegerFlag,
  parseAppHomeUrl,
  parsePublicUrl,
  parseTombstoneDaysFlag,
} from './command-args.js';
import {
  DEFAULT_DAILY_LIMIT,
  DEFAULT_HOST_API_HOST,
  DEFAULT_LOG_LEVEL,
  DEFAULT_MAX_WAITING,
  DEFAULT_MIN_INTERVAL_MS,
  DEFAULT_PORT,
  LOG_LEVELS,
  MAX_WORKERS,
  resolvePort,
  SERVE_FLAGS,
  SERVE_USAGE,
  setting,
} from './serve-flags.js';

/** `--trust-proxy 127.0.0.1,10.0.0.0/8`: the proxies whose X-Forwarded-For is believed; none by default. */
function parseTrustProxyFlag(value: string | undefined): TrustedProxies | undefined {
  if (value === undefined) return undefined;
  const parsed = parseTrustedProxies(value);
  if ('error' in parsed) throw new CliError(`--trust-proxy: ${parsed.error}`, { usage: true });
  return parsed;
}

/** `--direct-db`: a `postgres://` URL (used only when `--db` is one too), or a usage error. */
function parseDirectDatabase(value: string | undefined): string | undefined {
  if (value !== undefined && !isPostgresUrl(value)) {
    throw new CliError('--direct-db must be a postgres:// URL of PostgreSQL itself', { usage: true });
  }
  return value;
}

/** `serve`: runs the API until SIGTERM or SIGINT, then drains and exits 0. */
export async function runServe(argv: string[]): Promise<void> {
  // First of all: a signal that arrives while the service starts is a stop asked, not a death.
  const stop = listenForStopSignal();
  try {
    await serveUntilStopped(argv, stop);
  } finally {
    stop.stopListening();
  }
}

async function serveUntilStopped(argv: string[], stop: StopSignal): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, SERVE_FLAGS, SERVE_USAGE);
  if (positionals.length > 0)
    throw new CliError(`unexpected argument ${positionals[0]} (usage: ${SERVE_USAGE})`, { usage: true });
  const tlsCertFile = setting(values, 'tls-cert');
  const tlsKeyFile = setting(values, 'tls-key');
  if (values['insecure-http'] && (tlsCertFile !== undefined || tlsKeyFile !== undefined)) {
    throw new CliError('--insecure-http cannot be combined with a TLS certificate', { usage: true });
  }
  const logLevel = setting(values, 'log-level') ?? DEFAULT_LOG_LEVEL;
  if (!LOG_LEVELS.includes(logLevel))
    throw new CliError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`, { usage: true });
  const dataDir = values['data-dir'];

  const config: ServeConfig = {
    // Without --db, the database lives in the data folder (./data/meal-export.db by default).
    database: setting(values, 'db') ?? path.join(dataDir, 'meal-export.db'),
    directDatabase: parseDirectDatabase(resolveDirectDatabase(values['direct-db'])),
    host: values.host,
    port: resolvePort(values, 'port') ?? DEFAULT_PORT,
    dataDir,
    tlsCertFile,
    tlsKeyFile,
    insecureHttp: values['insecure-http'],
    minIntervalMs: parseIntegerFlag(values['min-interval-ms'], 'min-interval-ms', DEFAULT_MIN_INTERVAL_MS, 0),
    dailyLimit: parseIntegerFlag(values['daily-limit'], 'daily-limit', DEFAULT_DAILY_LIMIT, 1),
    tombstoneDays: parseTombstoneDaysFlag(values['tombstone-days']),
    logLevel,
    adminPort: resolvePort(values, 'admin-port'),
    workers: parseIntegerFlag(values.workers, 'workers', 1, 1, MAX_WORKERS),
    redisUrl: setting(values, 'redis'),
    redisPrefix: values['redis-prefix'] ?? DEFAULT_REDIS_PREFIX,
    appPort: resolvePort(values, 'app-port'),
    hostApiPort: resolvePort(values, 'host-api-port'),
    hostApiHost: values['host-api-host'] ?? DEFAULT_HOST_API_HOST,
    publicUrl: parsePublicUrl(setting(values, 'public-url')),
    appHomeUrl: parseAppHomeUrl(setting(values, 'app-home-url')),
    trustedProxies: parseTrustProxyFlag(values['trust-proxy']),
    maxWaiting: parseIntegerFlag(values['max-waiting'], 'max-waiting', DEFAULT_MAX_WAITING, 0),
    webhooks: { allowPrivate: values['webhook-allow-private'], caFile: values['webhook-ca'] },
  };
  // serve's data folder is the one folder a command makes for a store (docs/cli.md): the
  // store's own folder, when it is not the data folder, must exist.
  if (!isPostgresUrl(config.database) && path.resolve(path.dirname(config.database)) === path.resolve(dataDir)) {
    await mkdir(dataDir, { recursive: true });
  }
  // With --workers, this same command runs in the primary and in each worker it forks.
  if (config.workers > 1) await (cluster.isPrimary ? runClusterPrimary(config, stop) : runClusterWorker(config, stop));
  else await runAlone(config, stop);
}

/** One process serves (the default): the public listener, and the admin listener when asked. */
async function runAlone(config: ServeConfig, stop: StopSignal): Promise<void> {
  const metrics = config.adminPort === undefined ? undefined : createServiceMetrics();
  const server = await startServer(config, { holdLogs: true, ...(metrics === undefined ? {} : { metrics }) });
  let admin: AdminListener | undefined;
  if (metrics !== undefined && config.adminPort !== undefined) {
    try {
      admin = await startAdminListener(config.adminPort, scrapeRegistry(metrics.registry), server.app.log);
    } catch (error) {
      server.discardLogs();
      await server.close();
      throw error;
    }
  }
  // Every listener is bound: the lines held since the start (the certificate, …) go out now.
  server.releaseLogs();
  // Stopped while it started: no `listening on` line, since nothing will be served, and a
  // client or orchestrator told to proceed would find the port closing under it. The drain
  // below is the same either way.
  if ((await stop.receivedByNow()) === undefined) process.stdout.write(`listening on ${server.url}\n`);

  const signal = await stop.received;
  server.app.log.info({ signal }, 'shutting down: finishing the responses in flight');
  try {
    await server.close();
  } catch (err) {
    server.app.log.error({ err }, 'shutdown failed');
    process.exitCode = 1;
  }
  await admin?.close();
}
