import cluster from 'node:cluster';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { runClusterPrimary } from '../cluster/primary.js';
import { runClusterWorker } from '../cluster/worker.js';
import { DEFAULT_DATA_DIR, ENV, resolveDirectDatabase, resolveSetting } from '../config.js';
import { CliError } from '../errors.js';
import { type AdminListener, startAdminListener } from '../metrics/admin-listener.js';
import { scrapeRegistry } from '../metrics/cluster-metrics.js';
import { createServiceMetrics } from '../metrics/service-metrics.js';
import { DEFAULT_REDIS_PREFIX } from '../ratelimit/redis-keys.js';
import type { ServeConfig } from '../serve/serve-config.js';
import { startServer } from '../server.js';
import { isPostgresUrl } from '../storage/open-storage.js';
import { listenForStopSignal, type StopSignal } from '../stop-signal.js';
import { parseTrustedProxies, type TrustedProxies } from '../http/client-address.js';
import {
  COMMON_OPTIONS,
  type Flags,
  parseCommandArgs,
  parseIntegerFlag,
  parseAppHomeUrl,
  parsePublicUrl,
  parseTombstoneDaysFlag,
} from './command-args.js';
import { usageOf } from './command-help.js';
import { DEFAULT_TOMBSTONE_DAYS, MAX_TOMBSTONE_DAYS } from '../domain/tombstone-retention.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const MAX_WORKERS = 64;
/** Held long polls per process (docs/operations.md#long-polls-and-webhooks); 0 answers every `wait` at once. */
const DEFAULT_MAX_WAITING = 10_000;
const DEFAULT_PORT = 8443;
const DEFAULT_HOST_API_HOST = '127.0.0.1';
const DEFAULT_MIN_INTERVAL_MS = 3000;
const DEFAULT_DAILY_LIMIT = 1000;
const DEFAULT_LOG_LEVEL = 'info';

/**
 * Every flag of `serve`, with its variable and its default: the one place that knows them, read
 * by the parser, `serve --help` and the usage line (and tied to docs/configuration.md by a test).
 */
export const SERVE_FLAGS = {
  host: { type: 'string', default: '127.0.0.1', value: 'HOST', help: 'the address the API listens on' },
  port: {
    type: 'string',
    value: 'N',
    shown: String(DEFAULT_PORT),
    env: 'port',
    help: 'the API port, 0 for any free one',
  },
  'admin-port': {
    type: 'string',
    value: 'N',
    shown: 'none',
    env: 'adminPort',
    help: 'GET /metrics, plain HTTP on 127.0.0.1',
  },
  workers: { type: 'string', value: 'N', shown: '1', help: `processes sharing the port, 1 to ${MAX_WORKERS}` },
  'data-dir': {
    type: 'string',
    default: DEFAULT_DATA_DIR,
    value: 'DIR',
    help: 'the self-signed certificate, and the database without --db',
  },
  db: { ...COMMON_OPTIONS.db, shown: 'meal-export.db in --data-dir' },
  'tls-cert': {
    type: 'string',
    value: 'FILE',
    shown: 'a self-signed one in --data-dir',
    env: 'tlsCert',
    help: 'the TLS certificate (PEM), with --tls-key',
  },
  'tls-key': { type: 'string', value: 'FILE', shown: 'none', env: 'tlsKey', help: 'the TLS private key (PEM)' },
  'insecure-http': { type: 'boolean', default: false, help: 'plain HTTP, behind a TLS-terminating proxy' },
  'min-interval-ms': {
    type: 'string',
    value: 'MS',
    shown: String(DEFAULT_MIN_INTERVAL_MS),
    help: 'the least time between two requests of a key',
  },
  'daily-limit': {
    type: 'string',
    value: 'N',
    shown: String(DEFAULT_DAILY_LIMIT),
    help: 'requests per key per UTC day',
  },
  'tombstone-days': {
    type: 'string',
    value: 'N',
    shown: String(DEFAULT_TOMBSTONE_DAYS),
    help: `days deleted meals are kept, 0 to ${MAX_TOMBSTONE_DAYS}`,
  },
  'log-level': {
    type: 'string',
    value: 'LEVEL',
    shown: DEFAULT_LOG_LEVEL,
    env: 'logLevel',
    help: LOG_LEVELS.join(', '),
  },
  redis: {
    type: 'string',
    value: 'URL',
    shown: 'none: limits kept in this process',
    env: 'redisUrl',
    help: 'a Redis for rate limits shared by instances',
  },
  'redis-prefix': {
    type: 'string',
    value: 'PREFIX',
    shown: DEFAULT_REDIS_PREFIX,
    help: 'the start of every Redis key',
  },
  'app-port': {
    type: 'string',
    value: 'N',
    shown: 'none',
    env: 'appPort',
    help: 'the app page (sign-in, keys) on this port',
  },
  'host-api-port': {
    type: 'string',
    value: 'N',
    shown: 'none',
    env: 'hostApiPort',
    help: "the host API (the app's back end records meals, manages keys) on this port",
  },
  'host-api-host': {
    type: 'string',
    value: 'ADDRESS',
    shown: '127.0.0.1',
    help: 'the address the host API listens on',
  },
  'public-url': {
    type: 'string',
    value: 'URL',
    shown: 'the app page as served',
    env: 'publicUrl',
    help: "the app page's origin as browsers reach it",
  },
  'app-home-url': {
    type: 'string',
    value: 'URL',
    shown: 'none: the page says in words how to get back',
    env: 'appHomeUrl',
    help: "the diet app's https:// page the app page links back to",
  },
  'trust-proxy': {
    type: 'string',
    value: 'ADDRESSES',
    shown: 'none',
    help: 'comma-separated proxy addresses or CIDRs whose X-Forwarded-For is believed',
  },
  'max-waiting': {
    type: 'string',
    value: 'N',
    shown: String(DEFAULT_MAX_WAITING),
    help: 'long polls held per process, 0 for none',
  },
  'webhook-allow-private': {
    type: 'boolean',
    default: false,
    help: 'let webhooks call loopback and private addresses',
  },
  'webhook-ca': {
    type: 'string',
    value: 'FILE',
    shown: 'the system CAs',
    help: 'CA certificates (PEM) for webhook receivers',
  },
} as const satisfies Flags;

const USAGE = usageOf('meal-export serve', SERVE_FLAGS);

/** `--trust-proxy 127.0.0.1,10.0.0.0/8`: the proxies whose X-Forwarded-For is believed; none by default. */
function parseTrustProxyFlag(value: string | undefined): TrustedProxies | undefined {
  if (value === undefined) return undefined;
  const parsed = parseTrustedProxies(value);
  if ('error' in parsed) throw new CliError(`--trust-proxy: ${parsed.error}`, { usage: true });
  return parsed;
}

type PortFlag = 'port' | 'admin-port' | 'app-port' | 'host-api-port';
/** The flags that fall back to an environment variable. */
type FlagWithEnv = {
  [name in keyof typeof SERVE_FLAGS]: (typeof SERVE_FLAGS)[name] extends { env: string } ? name : never;
}[keyof typeof SERVE_FLAGS];

/** A flag's value, else the variable the flag declares. */
function setting(values: Readonly<Record<string, unknown>>, name: FlagWithEnv): string | undefined {
  return resolveSetting(values[name] as string | undefined, SERVE_FLAGS[name].env);
}

/** A port from its flag, else the variable its flag declares (named in the message, when it is the one that is wrong). */
function resolvePort(values: Readonly<Record<string, unknown>>, name: PortFlag): number | undefined {
  const value = setting(values, name);
  if (value === undefined) return undefined;
  const label = values[name] === undefined ? `${name} (from ${ENV[SERVE_FLAGS[name].env]})` : name;
  return parseIntegerFlag(value, label, 0, 0, 65535);
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
  const { values, positionals } = parseCommandArgs(argv, SERVE_FLAGS, USAGE);
  if (positionals.length > 0)
    throw new CliError(`unexpected argument ${positionals[0]} (usage: ${USAGE})`, { usage: true });
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
