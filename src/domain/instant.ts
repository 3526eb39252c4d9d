/**
 * Instants as the contract writes them (docs/api.md#the-call): parsed from RFC 3339 /
 * ISO 8601 extended date-times, written as `YYYY-MM-DDTHH:mm:ss.sssZ`.
 */

// date, then optionally: T, time with an optional fraction of 1-9 digits (RFC 3339 time-secfrac),
// then optionally Z or ±hh:mm.
const DATE_TIME_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))?)?$/;

/**
 * The shape of a lastModifiedSince, as a JSON Schema `pattern` (the OpenAPI document): what
 * parseInstant reads, before its checks of ranges (month 13, 2025-02-30) that no pattern makes.
 */
export const INSTANT_INPUT_PATTERN = DATE_TIME_RE.source;

/**
 * The shape of a meal's `date` as a record gives it: a date-time with its offset (`Z` or
 * `±hh:mm`), as a JSON Schema `pattern`. readInstant reads it; a record without the offset is
 * refused (meals-io/meal-record.ts).
 */
export const OFFSET_INSTANT_INPUT_PATTERN =
  '^(\\d{4})-(\\d{2})-(\\d{2})[Tt](\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d{1,9}))?(?:[Zz]|[+-]\\d{2}:\\d{2})$';

const MS_PER_MINUTE = 60_000;

function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one. setUTCFullYear, unlike Date.UTC,
  // leaves years 0-99 as they are (Date.UTC reads them as 1900-1999: 0000 is a leap year, 1900 is not).
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

/**
 * A date-time as written: its instant, and the offset it was written with: `Z`, a numeric
 * `±HH:MM`, or none (a bare date, or a local time with no offset).
 */
export interface WrittenInstant {
  readonly epoch: number;
  readonly offset: 'Z' | `${'+' | '-'}${string}` | undefined;
}

/**
 * Reads a date-time with `Z` or `±hh:mm` (none: UTC), or a bare `YYYY-MM-DD` (midnight UTC).
 * The fraction is truncated to milliseconds. Undefined for anything else, impossible dates
 * such as 2025-02-30 included.
 */
export function readInstant(text: string): WrittenInstant | undefined {
  const m = DATE_TIME_RE.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction, zulu, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  // RFC 3339 section 5.6: date-fullyear is any four digits, 0000 included.
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = fraction ? Number(fraction.slice(0, 3).padEnd(3, '0')) : 0;
  let offsetMinutes = 0;
  let offset: WrittenInstant['offset'] = zulu === undefined ? undefined : 'Z';
  if (sign !== undefined) {
    const offH = Number(oh);
    const offM = Number(om);
    if (offH > 23 || offM > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (offH * 60 + offM);
    offset = `${sign === '-' ? '-' : '+'}${oh}:${om}`;
  }
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, leaves years 0-99 as they are.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  const epoch = date.getTime() - offsetMinutes * MS_PER_MINUTE;
  return formattable(epoch) ? { epoch, offset } : undefined;
}

/** readInstant's instant alone: epoch milliseconds, or undefined. */
export function parseInstant(text: string): number | undefined {
  return readInstant(text)?.epoch;
}

/** True when the instant prints as a four-digit-year `YYYY-MM-DDTHH:mm:ss.sssZ`. */
function formattable(epochMs: number): boolean {
  const year = new Date(epochMs).getUTCFullYear();
  return Number.isFinite(epochMs) && year >= 0 && year <= 9999;
}

/**
 * Formats epoch milliseconds as `YYYY-MM-DDTHH:mm:ss.sssZ`. PostgreSQL's twin, for the meals it
 * places on the clock itself: meal_export_instant (storage/postgres/postgres-functions-digest.ts).
 */
export function formatInstant(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/**
 * A formatter like formatInstant that keeps the text of the last second it formatted, for
 * series of nearby instants (the modifiedAt values of one write): within that second only the
 * milliseconds are written.
 */
export function createInstantFormatter(): (epochMs: number) => string {
  let cachedSecond = Number.NaN;
  let cachedPrefix = '';
  return (epochMs) => {
    const second = Math.floor(epochMs / 1000);
    if (second !== cachedSecond) {
      cachedSecond = second;
      cachedPrefix = new Date(second * 1000).toISOString().slice(0, -4); // "YYYY-MM-DDTHH:mm:ss."
    }
    const milli = epochMs - second * 1000;
    return `${cachedPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
  };
}

/** Epoch milliseconds of the next 00:00:00Z after `now`: when the daily quota resets. */
export function nextUtcMidnight(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}
