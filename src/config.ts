import path from 'node:path';
import { parsedUrl } from './domain/parsed-url.js';

/**
 * Settings resolved in one place, in a fixed order: command-line flag, then environment
 * variable, then default. This is the only module that reads process.env. Every variable is
 * listed here and in docs/configuration.md.
 */
export const ENV = {
  databaseUrl: 'MEAL_EXPORT_DATABASE_URL',
  directDatabaseUrl: 'MEAL_EXPORT_DIRECT_DATABASE_URL',
  tlsCert: 'MEAL_EXPORT_TLS_CERT',
  tlsKey: 'MEAL_EXPORT_TLS_KEY',
  logLevel: 'MEAL_EXPORT_LOG_LEVEL',
  redisUrl: 'MEAL_EXPORT_REDIS_URL',
  apiKey: 'MEAL_EXPORT_API_KEY',
  publicUrl: 'MEAL_EXPORT_PUBLIC_URL',
  appHomeUrl: 'MEAL_EXPORT_APP_HOME_URL',
  port: 'MEAL_EXPORT_PORT',
  adminPort: 'MEAL_EXPORT_ADMIN_PORT',
  appPort: 'MEAL_EXPORT_APP_PORT',
  hostApiPort: 'MEAL_EXPORT_HOST_API_PORT',
  /** Set by `serve --workers N` for each worker it forks (1..N), never by users. */
  workerSlot: 'MEAL_EXPORT_WORKER_SLOT',
} as const;

export const DEFAULT_DATA_DIR = './data';
export const DEFAULT_DATABASE = path.join(DEFAULT_DATA_DIR, 'meal-export.db');

function fromEnv(name: keyof typeof ENV): string | undefined {
  const value = process.env[ENV[name]];
  return value === undefined || value === '' ? undefined : value;
}

/** A URL as a log or message may show it: its password, if any, replaced by `***`. */
export function redactedUrl(url: string): string {
  const parsed = parsedUrl(url);
  if (parsed === undefined) return `${/^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? ''}//…`;
  if (parsed.password !== '') parsed.password = '***';
  return parsed.href;
}

/** The flag's value, else the environment variable's, else the default. */
export function resolveSetting(flag: string | undefined, env: keyof typeof ENV, fallback: string): string;
export function resolveSetting(flag: string | undefined, env: keyof typeof ENV): string | undefined;
export function resolveSetting(flag: string | undefined, env: keyof typeof ENV, fallback?: string): string | undefined {
  return flag ?? fromEnv(env) ?? fallback;
}

/** The storage location: `--db`, MEAL_EXPORT_DATABASE_URL, or ./data/meal-export.db. */
export function resolveDatabase(flag: string | undefined): string {
  return resolveSetting(flag, 'databaseUrl', DEFAULT_DATABASE);
}

/**
 * `--direct-db` or MEAL_EXPORT_DIRECT_DATABASE_URL: PostgreSQL itself, where `--db` is a
 * transaction pooler (docs/operations.md#behind-pgbouncer); undefined when neither is set.
 */
export function resolveDirectDatabase(flag: string | undefined): string | undefined {
  return resolveSetting(flag, 'directDatabaseUrl');
}
