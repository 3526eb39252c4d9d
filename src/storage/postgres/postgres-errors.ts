import { redactedUrl } from '../../config.js';
import { AppError } from '../../errors.js';

/**
 * What a PostgreSQL failure means for the caller: "the store cannot be reached or cannot serve
 * now" (docs/errors.md: 503 unavailable), or a bug.
 */

// postgres.js's own codes for a connection that failed or went away, and Node's socket errors.
const CONNECTION_CODES = new Set([
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// SQLSTATE classes: 08 connection exception, 53 insufficient resources, 57P admin/crash
// shutdown or cannot connect now, 58 system error (I/O); 40001/40P01 are not here: they are
// retried by the caller, not reported.
const UNAVAILABLE_SQLSTATE = /^(08|53|57P|58)/;

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isUnavailable(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && (CONNECTION_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code));
}

/** 23505: a unique index refused a row (an id taken by a concurrent write). */
export function isUniqueViolation(error: unknown): boolean {
  return codeOf(error) === '23505';
}

/**
 * 40P01: the server broke a deadlock by aborting this transaction. Two imports of many users
 * can meet so: each waits on an id the other inserted, in the other order.
 */
export function isDeadlock(error: unknown): boolean {
  return codeOf(error) === '40P01';
}

/** 53100: no space left on the disk of a table, an index or the WAL. */
export function isDiskFull(error: unknown): boolean {
  return codeOf(error) === '53100';
}

/** The store at `url` cannot be opened, and why: `unavailable`, naming the URL without its password. */
export function cannotOpen(url: string, reason: string, cause?: unknown): AppError {
  return new AppError(
    'unavailable',
    `cannot open the database ${redactedUrl(url)}: ${reason}`,
    cause === undefined ? {} : { cause },
  );
}
