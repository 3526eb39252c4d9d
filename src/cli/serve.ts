import path from 'node:path';
import { DEFAULT_DATA_DIR, resolveSetting } from '../config.js';
import { CliError } from '../errors.js';
import { DEFAULT_REDIS_PREFIX } from '../ratelimit/redis-keys.js';
import { startServer } from '../server.js';
import { parseCommandArgs, parseIntegerFlag, parsePublicUrl, parseTombstoneDaysFlag } from './command-args.js';

const USAGE =
  'meal-export serve [--host 127.0.0.1] [--port 8443] [--data-dir ./data] [--db FILE|postgres://…] [--tls-cert F --tls-key F | --insecure-http] [--min-interval-ms 3000] [--daily-limit 1000] [--tombstone-days 30] [--redis URL] [--redis-prefix meal-export:] [--log-level info] [--app-port N [--public-url URL]]';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** `serve`: runs the API until SIGTERM or SIGINT, then drains and exits 0. */
export async function runServe(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string' },
      'admin-port': { type: 'string' },
      'data-dir': { type: 'string', default: DEFAULT_DATA_DIR },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'insecure-http': { type: 'boolean', default: false },
      'min-interval-ms': { type: 'string' },
      'daily-limit': { type: 'string' },
      'tombstone-days': { type: 'string' },
      'log-level': { type: 'string' },
      redis: { type: 'string' },
      'redis-prefix': { type: 'string' },
      'app-port': { type: 'string' },
      'public-url': { type: 'string' },
    },
    USAGE,
  );
  if (positionals.length > 0)
    throw new CliError(`unexpected argument ${positionals[0]} (usage: ${USAGE})`, { usage: true });
  if (values['admin-port'] !== undefined) {
    throw new CliError('--admin-port (the /metrics listener) is not available in this build yet', { usage: true });
  }
  const tlsCertFile = resolveSetting(values['tls-cert'], 'tlsCert');
  const tlsKeyFile = resolveSetting(values['tls-key'], 'tlsKey');
  if (values['insecure-http'] && (tlsCertFile !== undefined || tlsKeyFile !== undefined)) {
    throw new CliError('--insecure-http cannot be combined with a TLS certificate', { usage: true });
  }
  const logLevel = resolveSetting(values['log-level'], 'logLevel', 'info');
  if (!LOG_LEVELS.includes(logLevel))
    throw new CliError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`, { usage: true });
  const dataDir = values['data-dir'];

  const server = await startServer({
    // Without --db, the database lives in the data folder (./data/meal-export.db by default).
    database: resolveSetting(values.db, 'databaseUrl', path.join(dataDir, 'meal-export.db')),
    host: values.host,
    port: parseIntegerFlag(values.port, 'port', 8443, 0, 65535),
    dataDir,
    tlsCertFile,
    tlsKeyFile,
    insecureHttp: values['insecure-http'],
    minIntervalMs: parseIntegerFlag(values['min-interval-ms'], 'min-interval-ms', 3000, 0),
    dailyLimit: parseIntegerFlag(values['daily-limit'], 'daily-limit', 1000, 1),
    tombstoneDays: parseTombstoneDaysFlag(values['tombstone-days']),
    logLevel,
    redisUrl: resolveSetting(values.redis, 'redisUrl'),
    redisPrefix: values['redis-prefix'] ?? DEFAULT_REDIS_PREFIX,
    appPort:
      values['app-port'] === undefined ? undefined : parseIntegerFlag(values['app-port'], 'app-port', 0, 0, 65535),
    publicUrl: parsePublicUrl(resolveSetting(values['public-url'], 'publicUrl')),
  });
  process.stdout.write(`listening on ${server.url}\n`);

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      server.app.log.info({ signal }, 'shutting down: finishing the responses in flight');
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      server.close().then(resolve, (err: unknown) => {
        server.app.log.error({ err }, 'shutdown failed');
        process.exitCode = 1;
        resolve();
      });
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
