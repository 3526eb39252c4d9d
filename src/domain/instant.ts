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

const MS_PER_DAY = 86_400_000;

/** The proleptic Gregorian calendar's rule, year 0 included, as JavaScript's Date keeps it. */
const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

function daysInMonth(year: number, month: number): number {
  // 31 for January, March, May, July, August, October and December: the month's low bit,
  // flipped from August on.
  return month === 2 ? (isLeapYear(year) ? 29 : 28) : 30 + ((month + (month >> 3)) & 1);
}

/*
 * Civil dates and days since 1970-01-01, both ways, in plain arithmetic (H. Hinnant's
 * "chrono-compatible low-level date algorithms", as PostgreSQL's twin meal_export_instant
 * does): what Date computes for years 0-9999 at a third of the cost of building one, which an
 * import pays twice a meal (its date read, then written).
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function civilFromDays(days: number): readonly [year: number, month: number, day: number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const fromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const month = fromMarch < 10 ? fromMarch + 3 : fromMarch - 9;
  return [yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, dayOfYear - Math.floor((153 * fromMarch + 2) / 5) + 1];
}

/** The first and last instants of years 0000-9999, the ones written with a four-digit year. */
const FIRST_FORMATTABLE = daysFromCivil(0, 1, 1) * MS_PER_DAY;
const LAST_FORMATTABLE = daysFromCivil(10_000, 1, 1) * MS_PER_DAY - 1;

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
  const epoch =
    daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + ms;
  return formattable(epoch) ? { epoch, offset } : undefined;
}

/** readInstant's instant alone: epoch milliseconds, or undefined. */
export function parseInstant(text: string): number | undefined {
  return readInstant(text)?.epoch;
}

/** True when the instant prints as a four-digit-year `YYYY-MM-DDTHH:mm:ss.sssZ`. */
function formattable(epochMs: number): boolean {
  return epochMs >= FIRST_FORMATTABLE && epochMs <= LAST_FORMATTABLE;
}

/**
 * Formats epoch milliseconds as `YYYY-MM-DDTHH:mm:ss.sssZ`. PostgreSQL's twin, for the meals it
 * places on the clock itself: meal_export_instant (storage/postgres/postgres-functions-digest.ts).
 */
export function formatInstant(epochMs: number): string {
  // Other years (a sign and six digits), and the RangeError of an invalid time, are Date's.
  if (!formattable(epochMs) || !Number.isInteger(epochMs)) return new Date(epochMs).toISOString();
  const days = Math.floor(epochMs / MS_PER_DAY);
  const [year, month, day] = civilFromDays(days);
  const ofDay = epochMs - days * MS_PER_DAY;
  const seconds = Math.floor(ofDay / 1000);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(Math.floor(seconds / 3600), 2)}:${pad(
    Math.floor(seconds / 60) % 60,
    2,
  )}:${pad(seconds % 60, 2)}.${pad(ofDay % 1000, 3)}Z`;
}

/** `n` (0 ≤ n < 10 000) in `width` digits. */
function pad(n: number, width: number): string {
  const text = `${n}`;
  return text.length >= width ? text : '000'.slice(0, width - text.length) + text;
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
