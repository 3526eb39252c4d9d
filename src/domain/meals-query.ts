import { AppError } from '../errors.js';
import { redactApiKeys } from './api-key.js';
import { parseInstant } from './instant.js';
import type { FeedPosition } from './meal.js';

/** The query of GET /v1/meals, validated (CONTRACT.md section 2). */
export interface MealsQuery {
  readonly lastModifiedSince: number;
  readonly limit: number;
  readonly cursor: FeedPosition | undefined;
  readonly includeDeleted: boolean;
  /** `wait`: seconds to hold an empty page for a change (long poll); undefined: answer at once. */
  readonly waitSeconds: number | undefined;
}

/** The parameters, in the order the contract names the first one at fault. */
export const MEALS_QUERY_PARAMETERS = ['lastModifiedSince', 'limit', 'cursor', 'includeDeleted', 'wait'] as const;
export type MealsQueryParameter = (typeof MEALS_QUERY_PARAMETERS)[number];

export const DEFAULT_LIMIT = 1000;
export const MAX_LIMIT = 5000;
/** The longest long poll, in seconds (CONTRACT.md section 2). */
export const MAX_WAIT_SECONDS = 120;
/** ASCII digits only: `+5`, `1e3`, `5.0` and spaces are refused, leading zeros allowed. */
const DIGITS_RE = /^[0-9]+$/;

const invalid = (param: string, message: string) => new AppError('invalid_parameter', message, { param });

/** A parameter's value; undefined when its percent-encoding is malformed. */
type RawValue = string | undefined;

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * Splits a raw query string into name -> values. Names and values are percent-decoded as
 * RFC 3986 says (a `+` stays a plus sign, so an offset such as +01:00 may be sent as it is).
 * A value that cannot be decoded is kept as undefined, a fault of its parameter found in the
 * contract's order; a name that cannot be decoded is kept raw, an unknown parameter.
 */
function splitQuery(rawQuery: string): Map<string, RawValue[]> {
  const params = new Map<string, RawValue[]>();
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const name = decode(rawName) ?? rawName;
    const value = decode(eq < 0 ? '' : part.slice(eq + 1));
    const values = params.get(name);
    if (values === undefined) params.set(name, [value]);
    else values.push(value);
  }
  return params;
}

/**
 * Validates the query. `decodeCursor` checks a cursor against the key's user. Throws the
 * contract's 400 for the first parameter at fault, in the order lastModifiedSince, limit,
 * cursor, includeDeleted, wait, then unknown ones.
 */
export function parseMealsQuery(
  rawQuery: string,
  decodeCursor: (cursor: string) => FeedPosition | undefined,
): MealsQuery {
  const params = splitQuery(rawQuery);
  const single = (name: MealsQueryParameter): string | undefined => {
    const values = params.get(name);
    if (values === undefined) return undefined;
    if (values.length > 1) throw invalid(name, `${name} is given more than once.`);
    const value = values[0];
    if (value === undefined) throw invalid(name, `${name} is not valid percent-encoding.`);
    return value;
  };

  const since = single('lastModifiedSince');
  if (since === undefined) {
    throw new AppError(
      'missing_parameter',
      'lastModifiedSince is required: an ISO 8601 date-time such as 2025-01-01T00:00:00Z.',
      { param: 'lastModifiedSince' },
    );
  }
  const lastModifiedSince = parseInstant(since);
  if (lastModifiedSince === undefined) {
    throw invalid(
      'lastModifiedSince',
      'lastModifiedSince must be an ISO 8601 date-time with Z or an offset (2025-01-01T00:00:00Z), or a date (2025-01-01).',
    );
  }

  const limitText = single('limit');
  let limit = DEFAULT_LIMIT;
  if (limitText !== undefined) {
    limit = DIGITS_RE.test(limitText) ? Number(limitText) : 0;
    if (limit < 1 || limit > MAX_LIMIT) throw invalid('limit', `limit must be a whole number from 1 to ${MAX_LIMIT}.`);
  }

  const cursorText = single('cursor');
  let cursor: FeedPosition | undefined;
  if (cursorText !== undefined) {
    cursor = decodeCursor(cursorText);
    if (cursor === undefined) {
      throw invalid('cursor', "cursor is not valid: send a nextCursor from an earlier response for this key's user.");
    }
  }

  const includeDeletedText = single('includeDeleted');
  if (includeDeletedText !== undefined && includeDeletedText !== 'true' && includeDeletedText !== 'false') {
    throw invalid('includeDeleted', 'includeDeleted must be true or false.');
  }

  const waitText = single('wait');
  let waitSeconds: number | undefined;
  if (waitText !== undefined) {
    waitSeconds = DIGITS_RE.test(waitText) ? Number(waitText) : 0;
    if (waitSeconds < 1 || waitSeconds > MAX_WAIT_SECONDS)
      throw invalid('wait', `wait must be a whole number of seconds from 1 to ${MAX_WAIT_SECONDS}.`);
  }

  for (const name of params.keys()) {
    if (!(MEALS_QUERY_PARAMETERS as readonly string[]).includes(name)) {
      // `param` names it (CONTRACT.md section 5), but a key pasted there by mistake is not sent
      // back, and the message does not repeat it.
      throw invalid(redactApiKeys(name), `Unknown query parameter: expected ${MEALS_QUERY_PARAMETERS.join(', ')}.`);
    }
  }
  return { lastModifiedSince, limit, cursor, includeDeleted: includeDeletedText === 'true', waitSeconds };
}
