import path from 'node:path';
import { resolveDirectDatabase } from '../config.js';
import { CliError } from '../errors.js';
import { parseTrustedProxies, type TrustedProxies } from '../listener/client-address.js';
import { DEFAULT_REDIS_PREFIX } from '../ratelimit/redis-keys.js';
import type { ServeConfig } from '../serve/serve-config.js';
import { isPostgresUrl } from '../storage/open-storage.js';
import {
  parseAppHomeUrl,
  parseHttpsSetting,
  parseCommandArgs,
  parseIntegerFlag,
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

/**
 * `serve`'s arguments (and the MEAL_EXPORT_* variables that stand for them) as the settings
 * startServer reads: the one reading of them, for the command and for a process that starts
 * the service in itself (the tests' in-process server). A bad one is a usage error (CliError).
 */
export function serveConfigOf(argv: readonly string[]): ServeConfig {
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

  return {
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
    appSignInUrl: parseHttpsSetting('app-sign-in-url', values['app-sign-in-url']),
    apiPublicUrl: parseHttpsSetting('api-public-url', values['api-public-url']),
    trustedProxies: parseTrustProxyFlag(values['trust-proxy']),
    maxWaiting: parseIntegerFlag(values['max-waiting'], 'max-waiting', DEFAULT_MAX_WAITING, 0),
    webhooks: { allowPrivate: values['webhook-allow-private'], caFile: values['webhook-ca'] },
  };
}
