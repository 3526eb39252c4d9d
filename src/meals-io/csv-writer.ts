import { formatInstant } from '../domain/instant.js';
import { MEAL_FIELDS, type Meal } from '../domain/meal.js';

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

export const CSV_HEADER = `${MEAL_FIELDS.join(',')}${CRLF}`;

/** What a file starts with: the header row, after the byte order mark in the spreadsheet form. */
export function csvHeader(options: CsvOptions = {}): string {
  return options.forSpreadsheet === true ? `${BYTE_ORDER_MARK}${CSV_HEADER}` : CSV_HEADER;
}

/** One meal as a CSV row, CRLF included. */
export function csvRow(meal: Meal, options: CsvOptions = {}): string {
  const cells = MEAL_FIELDS.map((field) => {
    // Instants are YYYY-MM-DDTHH:mm:ss.sssZ (years 0000-9999): never a formula.
    if (field === 'date' || field === 'modifiedAt') return formatInstant(meal[field]);
    return cell(meal[field], options);
  });
  return `${cells.join(',')}${CRLF}`;
}
