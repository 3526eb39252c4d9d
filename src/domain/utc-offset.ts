/**
 * A meal's UTC offset (docs/api.md#the-persons-day): `±HH:MM`, at most 14 hours either way,
 * the offset of the local time the meal was eaten at. `date` plus it is the person's local date
 * and time, the day a meal belongs to when a consumer adds up a day.
 */
const MS_PER_MINUTE = 60_000;
const MAX_OFFSET_MINUTES = 14 * 60;
const OFFSET_RE = /^([+-])(\d{2}):([0-5]\d)$/;

/** The form of a `utcOffset`, as a JSON Schema `pattern`: ±HH:MM from -14:00 to +14:00. */
export const UTC_OFFSET_PATTERN = '^[+-](?:(?:0\\d|1[0-3]):[0-5]\\d|14:00)$';

/** The offset's minutes east of UTC, or undefined when `text` is no offset of this form. */
export function utcOffsetMinutes(text: string): number | undefined {
  const match = OFFSET_RE.exec(text);
  if (match === null) return undefined;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  if (minutes > MAX_OFFSET_MINUTES) return undefined;
  return match[1] === '-' ? -minutes : minutes;
}

export function isUtcOffset(value: unknown): value is string {
  return typeof value === 'string' && utcOffsetMinutes(value) !== undefined;
}

/** The local date and time of an instant at an offset: `YYYY-MM-DD` and `HH:MM`. */
export interface LocalDateTime {
  readonly date: string;
  readonly time: string;
}

/**
 * `epochMs` as the wall clock of a place at `utcOffset` reads it, written as if it were UTC:
 * comparable with UTC midnights to find the local day. Null (unknown): the UTC clock.
 */
export function localClockOf(epochMs: number, utcOffset: string | null): number {
  return utcOffset === null ? epochMs : epochMs + (utcOffsetMinutes(utcOffset) ?? 0) * MS_PER_MINUTE;
}

/**
 * Where `epochMs` falls on the clock of a place at `utcOffset` (one of this module's form); null
 * (unknown): on the UTC clock, as a day's range and its totals count such a meal.
 */
export function localDateTimeOf(epochMs: number, utcOffset: string | null): LocalDateTime {
  const local = new Date(localClockOf(epochMs, utcOffset)).toISOString();
  // toISOString of years 0000-9999 is YYYY-MM-DDTHH:mm:ss.sssZ.
  return { date: local.slice(0, 10), time: local.slice(11, 16) };
}
