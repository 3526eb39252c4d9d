import { formatInstant } from '../domain/instant.js';
import { MEAL_FIELDS, type Meal } from '../domain/meal.js';
import { type FieldsOfKind, fieldsOfKind, MEAL_FIELD_TABLE } from '../domain/meal-fields.js';
import { localDateTimeOf } from '../domain/utc-offset.js';

/**
 * The CSV layout of `meals export` (docs/cli.md#meals): RFC 4180
 * (https://www.rfc-editor.org/rfc/rfc4180) with CRLF line ends, a header row of the Meal
 * fields in contract order (modifiedAt last), null as an empty field. By default values are
 * written unchanged, for programs: what was imported comes back. The spreadsheet form
 * (`--for-spreadsheet`, the app page's download) is for a person who double-clicks the file.
 */
const CRLF = '\r\n';
const NEEDS_QUOTES_RE = /[",\r\n]/;
/** Excel reads a file without it as the system's code page: `Crème` becomes `CrÃ¨me`. */
const BYTE_ORDER_MARK = '\uFEFF';
/** What a spreadsheet takes as the start of a formula (OWASP, "CSV Injection"). */
const FORMULA_START_RE = /^[=+\-@\t\r]/;

export interface CsvOptions {
  /** A UTF-8 byte order mark, and a `'` before every text cell a spreadsheet would run. */
  readonly forSpreadsheet?: boolean;
}

/** One field: quoted, with quotes doubled, only when it holds a comma, a quote, CR or LF. */
export function csvField(value: string): string {
  return NEEDS_QUOTES_RE.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A text cell a spreadsheet would run as a formula, made plain text by a leading `'`. */
export function spreadsheetText(value: string): string {
  return FORMULA_START_RE.test(value) ? `'${value}` : value;
}

function cell(value: string | number | null, options: CsvOptions): string {
  if (value === null) return '';
  // Numbers as JSON writes them: the shortest text that reads back as the same number. A
  // negative number is a number to a spreadsheet too, not a formula: only text is guarded.
  if (typeof value === 'number') return JSON.stringify(value);
  return csvField(options.forSpreadsheet === true ? spreadsheetText(value) : value);
}

/**
 * The spreadsheet form's two columns after `utcOffset` (docs/cli.md#meals): the person's local
 * date and time, so that one sorting or grouping by day gets their days; where the offset is
 * unknown, the UTC date and time, the day the page's range counts the meal on, so that grouping
 * by `localDate` loses no meal.
 */
const LOCAL_COLUMNS = ['localDate', 'localTime'] as const;
const OFFSET_FIELDS: readonly string[] = fieldsOfKind('offset');

/** The columns of each form: the Meal fields in contract order, and the local ones in the spreadsheet's. */
const COLUMNS = MEAL_FIELDS.join(',');
const SPREADSHEET_COLUMNS = MEAL_FIELDS.flatMap((field) =>
  OFFSET_FIELDS.includes(field) ? [field, ...LOCAL_COLUMNS] : [field],
).join(',');

export const CSV_HEADER = `${COLUMNS}${CRLF}`;

/** What a file starts with: the header row, after the byte order mark in the spreadsheet form. */
export function csvHeader(options: CsvOptions = {}): string {
  return options.forSpreadsheet === true ? `${BYTE_ORDER_MARK}${SPREADSHEET_COLUMNS}${CRLF}` : CSV_HEADER;
}

/** One meal as a CSV row, CRLF included. */
export function csvRow(meal: Meal, options: CsvOptions = {}): string {
  const cells: string[] = [];
  for (const { name, kind } of MEAL_FIELD_TABLE) {
    // Instants are YYYY-MM-DDTHH:mm:ss.sssZ (years 0000-9999): never a formula. An offset
    // starts with + or -, so it is text a spreadsheet would run, and guarded as such.
    if (kind === 'instant' || kind === 'clock') {
      cells.push(formatInstant(meal[name as 'date' | 'modifiedAt']));
    } else if (kind === 'offset') {
      const offset = meal[name as FieldsOfKind<'offset'>];
      cells.push(cell(offset, options));
      if (options.forSpreadsheet === true) {
        const local = localDateTimeOf(meal.date, offset);
        cells.push(local.date, local.time);
      }
    } else {
      cells.push(cell(meal[name], options));
    }
  }
  return `${cells.join(',')}${CRLF}`;
}
