import { DEFAULT_DATA_DIR, ENV, resolveSetting } from '../config.js';
import { DEFAULT_TOMBSTONE_DAYS, MAX_TOMBSTONE_DAYS } from '../domain/tombstone-retention.js';
import { DEFAULT_REDIS_PREFIX } from '../ratelimit/redis-keys.js';
import { COMMON_OPTIONS, type Flags, parseIntegerFlag } from './command-args.js';
import { usageOf } from './command-help.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export const MAX_WORKERS = 64;
/** Held long polls per process (docs/operations.md#long-polls-and-webhooks); 0 answers every `wait` at once. */
export const DEFAULT_MAX_WAITING = 10_000;
export const DEFAULT_PORT = 8443;
export const DEFAULT_HOST_API_HOST = '127.0.0.1';
export const DEFAULT_MIN_INTERVAL_MS = 3000;
export const DEFAULT_DAILY_LIMIT = 1000;
export const DEFAULT_LOG_LEVEL = 'info';

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
  // Every command takes it; serve is the one that uses it, so its usage line names it.
  'direct-db': COMMON_OPTIONS['direct-db'],
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
    shown: DEFAULT_HOST_API_HOST,
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
  'app-sign-in-url': {
    type: 'string',
    value: 'URL',
    shown: 'none: the page asks the person to sign in to the app first',
    help: "the diet app's https:// sign-in page, for a person asked for consent before signing in",
  },
  'api-public-url': {
    type: 'string',
    value: 'URL',
    shown: 'the public listener as served',
    help: "the API's https:// address as third parties reach it (Connect's issuer)",
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

export const SERVE_USAGE = usageOf('meal-export serve', SERVE_FLAGS);

type PortFlag = 'port' | 'admin-port' | 'app-port' | 'host-api-port';
/** The flags that fall back to an environment variable. */
type FlagWithEnv = {
  [name in keyof typeof SERVE_FLAGS]: (typeof SERVE_FLAGS)[name] extends { env: string } ? name : never;
}[keyof typeof SERVE_FLAGS];

/** A flag's value, else the variable the flag declares. */
export function setting(values: Readonly<Record<string, unknown>>, name: FlagWithEnv): string | undefined {
  return resolveSetting(values[name] as string | undefined, SERVE_FLAGS[name].env);
}

/** A port from its flag, else the variable its flag declares (named in the message, when it is the one that is wrong). */
export function resolvePort(values: Readonly<Record<string, unknown>>, name: PortFlag): number | undefined {
  const value = setting(values, name);
  if (value === undefined) return undefined;
  const label = values[name] === undefined ? `${name} (from ${ENV[SERVE_FLAGS[name].env]})` : name;
  return parseIntegerFlag(value, label, 0, 0, 65535);
}
