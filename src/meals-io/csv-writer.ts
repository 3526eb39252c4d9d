import { formatInstant } from '../domain/instant.js';
import { MEAL_FIELDS, type Meal } from '../domain/meal.js';

/**
 * The CSV layout of `meals export` (docs/cli.md#meals): RFC 4180
 * (https://www.rfc-editor.org/rfc/rfc4180) with CRLF line ends, a header row of the Meal
 * fields in contract order (modifiedAt last), null as an empty field. Values are written
 * unchanged, with no spreadsheet-formula escaping: the contract wants what was imported back.
 */
const CRLF = '\r\n';
const NEEDS_QUOTES_RE = /[",\r\n]/;

/** One field: quoted, with quotes doubled, only when it holds a comma, a quote, CR or LF. */
export function csvField(value: string): string {
  return NEEDS_QUOTES_RE.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function cell(value: string | number | null): string {
  if (value === null) return '';
  // Numbers as JSON writes them: the shortest text that reads back as the same number.
  return typeof value === 'number' ? JSON.stringify(value) : csvField(value);
}

export const CSV_HEADER = `${MEAL_FIELDS.join(',')}${CRLF}`;

/** One meal as a CSV row, CRLF included. */
export function csvRow(meal: Meal): string {
  const cells = MEAL_FIELDS.map((field) => {
    if (field === 'date' || field === 'modifiedAt') return formatInstant(meal[field]);
    return cell(meal[field]);
  });
  return `${cells.join(',')}${CRLF}`;
}
