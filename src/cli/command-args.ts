import { parseArgs } from 'node:util';
import { DEFAULT_DATABASE, redactedUrl } from '../config.js';
import { DEFAULT_TOMBSTONE_DAYS, MAX_TOMBSTONE_DAYS } from '../domain/tombstone-retention.js';
import { isValidUserId } from '../domain/user-id.js';
import { CliError } from '../errors.js';
import { commandOf, type Flags, helpText, parseArgsOptions } from './command-help.js';
import { parsedUrl } from '../domain/parsed-url.js';

export type { Flag, Flags } from './command-help.js';

/** Flags every command takes. */
export const COMMON_OPTIONS = {
  db: {
    type: 'string',
    value: 'PATH|postgres://…',
    help: 'the store: a SQLite file or a PostgreSQL URL',
    shown: `./${DEFAULT_DATABASE}`,
    env: 'databaseUrl',
  },
  'direct-db': {
    type: 'string',
    value: 'postgres://…',
    help: 'PostgreSQL itself, for LISTEN, when --db is a transaction pooler (serve)',
    shown: 'none',
    env: 'directDatabaseUrl',
  },
  json: { type: 'boolean', default: false, help: 'machine-readable output on stdout' },
  help: { type: 'boolean', short: 'h', default: false, help: 'show this help and exit' },
} as const satisfies Flags;

/** `--user ID`, which most commands require. */
export const USER_FLAG = {
  user: { type: 'string', value: 'ID', required: true, help: 'the user, 1 to 200 printable characters' },
} as const satisfies Flags;

/** What parseArgs returns for one command's options (named, so declarations can be emitted). */
type ParsedCommandArgs<O extends Flags> = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof COMMON_OPTIONS & O; allowPositionals: true; strict: true }>
>;

/** node:util parseArgs's refusals, said as the rest of the command line speaks (docs/cli.md). */
function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  const flag = /'(?:-\w, )?(-{1,2}[^' ]+)/.exec(message)?.[1];
  if (flag === undefined) return message;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${flag}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return message.includes('does not take an argument') ? `${flag} takes no value` : `${flag} needs a value`;
  }
  return message;
}

/**
 * Parses one command's arguments strictly with node:util parseArgs: unknown flags and missing
 * values are usage errors (exit 2) that point at the command's `--help`, which lists every
 * flag of `options` (and the common ones) with its default and its environment variable.
 */
export function parseCommandArgs<O extends Flags>(
  argv: readonly string[],
  options: O,
  usage: string,
): ParsedCommandArgs<O> {
  // The command's own flags first; a command may redescribe a common one (serve's --db default).
  const flags: Flags = { ...options, ...COMMON_OPTIONS, ...options };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options: parseArgsOptions(flags), allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${describeParseError(error)} (see ${commandOf(usage)} --help)`, { usage: true });
  }
  if (parsed.values.help === true) {
    process.stdout.write(`${helpText(usage, flags)}\n`);
    process.exit(0);
  }
  return parsed as ParsedCommandArgs<O>;
}

/** A required string flag, or a usage error naming it. */
export function requireFlag(value: string | boolean | undefined, flag: string, usage: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new CliError(`missing --${flag} (usage: ${usage})`, { usage: true });
  }
  return value;
}

/** A whole number flag within [min, max], or a usage error. */
export function parseIntegerFlag(
  value: string | boolean | undefined,
  flag: string,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new CliError(`--${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`, {
      usage: true,
    });
  }
  return Number(value);
}

/** `--tombstone-days` of `serve` and `meals prune`: 0 to 3650, default 30 (docs/api.md#staying-in-sync). */
export function parseTombstoneDaysFlag(value: string | boolean | undefined): number {
  return parseIntegerFlag(value, 'tombstone-days', DEFAULT_TOMBSTONE_DAYS, 0, MAX_TOMBSTONE_DAYS);
}

/** Exactly `count` positional arguments, or a usage error. */
export function expectPositionals(positionals: readonly string[], count: number, usage: string): string[] {
  if (positionals.length !== count) {
    throw new CliError(
      `expected ${count} argument${count === 1 ? '' : 's'}, got ${positionals.length} (usage: ${usage})`,
      {
        usage: true,
      },
    );
  }
  return [...positionals];
}

/** `--user`: required, 1 to 200 printable characters. */
export function requireUserId(value: string | boolean | undefined, usage: string): string {
  const userId = requireFlag(value, 'user', usage);
  if (!isValidUserId(userId)) throw new CliError('--user must be 1 to 200 printable characters', { usage: true });
  return userId;
}

/**
 * `--app-home-url` (or MEAL_EXPORT_APP_HOME_URL): the diet app's own page, where the app page's
 * "Resources" crumb and its "get a new link" links lead (docs/app.md#staying-signed-in). https://
 * only, and no user or password: it is shown to every visitor, signed in or not.
 */
export function parseAppHomeUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = parsedUrl(value);
  if (url === undefined || url.protocol !== 'https:' || url.username !== '' || url.password !== '') {
    throw new CliError(
      `--app-home-url must be an https:// address such as https://diet.example.com/resources, got ${JSON.stringify(redactedUrl(value))}`,
      { usage: true },
    );
  }
  return url.href;
}

/**
 * `--app-sign-in-url`: where the app page sends a person who is not signed in when a third
 * party asks for their consent (docs/connect.md#signing-in-first), with `?return=` the request
 * to come back to. https:// only, no user or password, no fragment.
 *
 * `--api-public-url`: the public API's address as third parties reach it, the issuer of
 * Connect (docs/connect.md#discovery). https:// only, no query or fragment.
 */
export function parseHttpsSetting(
  flag: 'app-sign-in-url' | 'api-public-url',
  value: string | undefined,
): string | undefined {
  if (value === undefined) return undefined;
  const url = parsedUrl(value);
  const bare = url !== undefined && url.username === '' && url.password === '' && url.hash === '';
  if (url === undefined || url.protocol !== 'https:' || !bare || (flag === 'api-public-url' && url.search !== '')) {
    throw new CliError(
      `--${flag} must be an https:// address such as https://${flag === 'api-public-url' ? 'api.diet.example' : 'diet.example.com/sign-in'}, got ${JSON.stringify(redactedUrl(value))}`,
      { usage: true },
    );
  }
  // The issuer is compared as a string (RFC 8414 section 3.3): one spelling, without a final slash.
  return flag === 'api-public-url' ? url.href.replace(/\/$/, '') : url.href;
}

/**
 * `--public-url` (or MEAL_EXPORT_PUBLIC_URL): the app page's origin as browsers reach it. An
 * origin only: the page's routes sit at the root (`/login`, `/keys`, `/static/…`).
 */
export function parsePublicUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = parsedUrl(value);
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.pathname !== '/') {
    throw new CliError(
      `--public-url must be an origin such as https://meals.example.com, got ${JSON.stringify(value)}`,
      {
        usage: true,
      },
    );
  }
  return url.origin;
}
