import { type ParseArgsConfig, parseArgs } from 'node:util';
import { DEFAULT_TOMBSTONE_DAYS, MAX_TOMBSTONE_DAYS } from '../domain/tombstone-retention.js';
import { isValidUserId } from '../domain/user-id.js';
import { CliError } from '../errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Flags every command takes. */
export const COMMON_OPTIONS = {
  db: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies Options;

/**
 * Parses one command's arguments strictly (unknown flags and missing values are usage errors,
 * exit 2) with node:util parseArgs.
 */
/** What parseArgs returns for one command's options (named, so declarations can be emitted). */
type ParsedCommandArgs<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof COMMON_OPTIONS & O; allowPositionals: true; strict: true }>
>;

export function parseCommandArgs<O extends Options>(
  argv: readonly string[],
  options: O,
  usage: string,
): ParsedCommandArgs<O> {
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: { ...COMMON_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    });
    if ((parsed.values as { help?: boolean }).help === true) {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    }
    return parsed;
  } catch (error) {
    if (error instanceof CliError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(`${message} (usage: ${usage})`, { usage: true });
  }
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

/** `--tombstone-days` of `serve` and `meals prune`: 0 to 3650, default 30 (CONTRACT.md section 2). */
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
 * `--public-url` (or MEAL_EXPORT_PUBLIC_URL): the app page's origin as browsers reach it. An
 * origin only: the page's routes sit at the root (`/login`, `/keys`, `/static/…`).
 */
export function parsePublicUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
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
