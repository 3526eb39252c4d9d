import { readInstant, type WrittenInstant } from '../domain/instant.js';
import { isMealType, MEAL_FIELDS, MEAL_TYPES, type MealContent, type MealSave, type MealType } from '../domain/meal.js';
import { MEAL_FIELD_TABLE } from '../domain/meal-fields.js';
import { codePoints, isWellFormedText, MAX_MEAL_ID_LENGTH, mealIdFault } from '../domain/meal-id.js';
import { randomId } from '../domain/random-id.js';
import { isSourceVersion, parseSourceVersionText, sourceVersionFault } from '../domain/source-version.js';
import { isUtcOffset } from '../domain/utc-offset.js';

/**
 * One import record (docs/cli.md#formats) checked and turned into the meal
 * it records. JSON Lines records carry JSON values; CSV records carry a string per cell, where
 * an empty cell is "" for text and null for numbers.
 */
export type RecordSource = 'json' | 'csv';

/** A record's meal, or its first fault: the message and the field at fault (an unknown field: its name). */
export type MealRecordResult =
  | { readonly ok: true; readonly meal: MealSave }
  | { readonly ok: false; readonly message: string; readonly field: string };

const MAX_TEXT_LENGTH = 10_000;
/**
 * The Meal fields and, beside them, the version the app gives the save (domain/source-version.ts)
 * and `deleted`, which a GET answers: a meal read can be saved back as it is
 * (docs/host-api.md#a-meal-read-and-saved-back).
 */
const KNOWN_FIELDS: ReadonlySet<string> = new Set([...MEAL_FIELDS, 'sourceVersion', 'deleted']);
/** The offsets a `date` may be written with that name no place: they never disagree with a `utcOffset`. */
const PLACELESS_OFFSETS: ReadonlySet<string | undefined> = new Set([undefined, 'Z', '+00:00', '-00:00']);
// Plain decimal notation only: no spaces, hex, "Infinity" or locale separators, which Number() would accept or misread.
const CSV_NUMBER_RE = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const MEAL_TYPE_LIST = MEAL_TYPES.join(', ');

/**
 * A fault in one field; thrown only between the readers below and parseMealRecord, which returns
 * it as a value. Its message is one sentence (docs/errors.md#messages): the field named as
 * written, and a full stop, added here so that no reader forgets it.
 */
class RecordError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${message}.`);
  }
}

/** Quotes a bad value for a one-line message, cut short so a huge cell cannot flood the terminal. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function isMissing(value: unknown): boolean {
  return value === undefined || value === null;
}

/** `pathId`: the id a PUT's path names, which a record's own id must repeat when it gives one. */
function readId(value: unknown, pathId: string | undefined): string {
  if (isMissing(value) || value === '') return pathId ?? randomId('m_');
  if (pathId !== undefined && value !== pathId) {
    throw new RecordError('id', `id must be the path's meal id ${shown(pathId)} or absent, got ${shown(value)}`);
  }
  if (typeof value !== 'string') throw new RecordError('id', `id must be a string, got ${shown(value)}`);
  // The one rule of meal ids (domain/meal-id.ts); a long id is not echoed.
  const fault = mealIdFault(value);
  if (fault !== undefined) {
    throw new RecordError(
      'id',
      `id must ${fault}${codePoints(value) > MAX_MEAL_ID_LENGTH ? '' : `, got ${shown(value)}`}`,
    );
  }
  return value;
}

function readText(field: string, value: unknown): string {
  if (isMissing(value)) return '';
  if (typeof value !== 'string') throw new RecordError(field, `${field} must be a string or null, got ${shown(value)}`);
  // Count code points, not UTF-16 units, so the limit means the same for every script.
  if (value.length > MAX_TEXT_LENGTH && codePoints(value) > MAX_TEXT_LENGTH) {
    throw new RecordError(field, `${field} must be at most ${MAX_TEXT_LENGTH} characters`);
  }
  if (!isWellFormedText(value)) {
    throw new RecordError(field, `${field} must be well-formed Unicode, got ${shown(value)}`);
  }
  return value;
}

function readType(value: unknown): MealType {
  if (isMissing(value) || value === '') throw new RecordError('type', 'type is required');
  if (!isMealType(value)) throw new RecordError('type', `type must be one of ${MEAL_TYPE_LIST}, got ${shown(value)}`);
  return value;
}

function readDate(field: string, value: unknown): WrittenInstant {
  if (isMissing(value) || value === '') throw new RecordError(field, `${field} is required`);
  const written = typeof value === 'string' ? readInstant(value) : undefined;
  if (written === undefined) {
    throw new RecordError(
      field,
      `${field} must be an ISO 8601 date-time such as 2025-03-01T12:30:00Z, got ${shown(value)}`,
    );
  }
  // A time without an offset is a local time of some unknown place (what a naive clock
  // writes): taking it as UTC would move the meal by hours without a word.
  if (written.offset === undefined) {
    throw new RecordError(
      field,
      `${field} must carry its offset from UTC (Z or ±HH:MM), such as 2025-03-01T12:30:00Z or 2025-03-01T12:30:00+01:00, got ${shown(value)}`,
    );
  }
  return written;
}

/**
 * The meal's UTC offset (docs/api.md#the-persons-day): the record's own when it gives one;
 * else the offset its date was written with when that is numeric and a place's (`Z` names the
 * instant, not where the person was; RFC 3339 writes an unknown one `-00:00`); else null.
 */
function readOffset(
  field: string,
  value: unknown,
  source: RecordSource,
  dateOffset: string | undefined,
): string | null {
  if (isMissing(value) || (source === 'csv' && value === '')) {
    if (dateOffset === undefined || dateOffset === 'Z' || dateOffset === '-00:00') return null;
    return isUtcOffset(dateOffset) ? dateOffset : null;
  }
  if (!isUtcOffset(value)) {
    throw new RecordError(
      field,
      `${field} must be an offset from UTC ±HH:MM, at most 14 hours, such as +09:00 or -08:00, or null, got ${shown(value)}`,
    );
  }
  // Two different places for one meal: which is true cannot be known, so neither is taken.
  if (!PLACELESS_OFFSETS.has(dateOffset) && value !== dateOffset) {
    throw new RecordError(
      field,
      `${field} must be the offset written in date (${dateOffset}), or absent, got ${shown(value)}`,
    );
  }
  return value;
}

function readNumber(field: string, value: unknown, source: RecordSource): number | null {
  if (isMissing(value)) return null;
  let number: number;
  if (source === 'csv' && typeof value === 'string') {
    if (value === '') return null;
    if (!CSV_NUMBER_RE.test(value))
      throw new RecordError(field, `${field} must be a number or empty, got ${shown(value)}`);
    number = Number(value);
  } else if (typeof value === 'number') {
    number = value;
  } else {
    throw new RecordError(field, `${field} must be a number or null, got ${shown(value)}`);
  }
  if (!Number.isFinite(number)) throw new RecordError(field, `${field} must be a finite number, got ${shown(value)}`);
  if (number < 0) throw new RecordError(field, `${field} must be 0 or more, got ${shown(value)}`);
  // -0 would be stored as it is and read back as 0: make it 0 now.
  return number === 0 ? 0 : number;
}

/**
 * The version of a save, when given: a JSON integer 0 … 2^53 - 1, or a CSV cell of digits
 * (empty: none).
 */
function readSourceVersion(value: unknown, source: RecordSource): number | undefined {
  // null is no version, as a GET of a meal never given one shows it: what is read back can be saved again.
  if (isMissing(value) || (source === 'csv' && value === '')) return undefined;
  const version = source === 'csv' && typeof value === 'string' ? parseSourceVersionText(value) : value;
  if (!isSourceVersion(version)) {
    throw new RecordError('sourceVersion', sourceVersionFault(shown(value)));
  }
  return version;
}

/**
 * A GET's `deleted`: a live meal's `false` is read-only, saved back as it is; `true` is a
 * tombstone, which a save cannot make (a delete does).
 */
function readDeleted(value: unknown, source: RecordSource): void {
  if (isMissing(value) || value === false || (source === 'csv' && (value === '' || value === 'false'))) return;
  throw new RecordError('deleted', `deleted must be false or absent (a delete removes a meal), got ${shown(value)}`);
}

/**
 * Checks one record, for every door alike (`meals import`, the host API's PUT and import,
 * `meal-export/host`). Unknown fields are refused (they are usually typos of a Meal field that
 * would otherwise be dropped silently); the read-only fields a GET answers are taken back, so a
 * meal read can be saved as it is: `modifiedAt` is ignored, since the store sets it, `deleted`
 * must be `false`, and `sourceVersion: null` is no version. A missing or empty `id` gets a new
 * random one, or `pathId`, the id of a PUT's path, which an `id` given must equal. `alsoField`
 * is one field more that the record may carry and the caller reads (the `userId` of a record of
 * every user's history), passed over here rather than copied out of every record.
 */
export function parseMealRecord(
  fields: Readonly<Record<string, unknown>>,
  source: RecordSource,
  pathId?: string,
  alsoField?: string,
): MealRecordResult {
  try {
    for (const name of Object.keys(fields)) {
      if (!KNOWN_FIELDS.has(name) && name !== alsoField) throw new RecordError(name, `Unknown field ${shown(name)}`);
    }
    // Checked in contract field order, so the first fault reported is the leftmost one.
    const meal: Record<string, unknown> = {};
    let dateOffset: string | undefined;
    for (const { name, kind } of MEAL_FIELD_TABLE) {
      const value = fields[name];
      if (kind === 'id') meal[name] = readId(value, pathId);
      else if (kind === 'text') meal[name] = readText(name, value);
      else if (kind === 'type') meal[name] = readType(value);
      else if (kind === 'number') meal[name] = readNumber(name, value, source);
      else if (kind === 'offset') meal[name] = readOffset(name, value, source, dateOffset);
      else if (kind === 'instant') {
        const written = readDate(name, value);
        meal[name] = written.epoch;
        dateOffset = written.offset;
      }
      // kind 'clock': the store sets it.
    }
    readDeleted(fields.deleted, source);
    const sourceVersion = readSourceVersion(fields.sourceVersion, source);
    // Only when given: a record without one is the meal alone, as before versions existed.
    const content = meal as unknown as MealContent;
    return { ok: true, meal: sourceVersion === undefined ? content : { ...content, sourceVersion } };
  } catch (error) {
    if (error instanceof RecordError) return { ok: false, message: error.message, field: error.field };
    throw error;
  }
}
