import { CsvError, parse } from 'csv-parse/sync';
import { MEAL_FIELDS } from '../domain/meal.js';
import type { LineError, RawRecord, RawRecords } from './raw-record.js';

const KNOWN_COLUMNS: ReadonlySet<string> = new Set(MEAL_FIELDS);
/** Columns a file may leave out: the store makes ids and sets modifiedAt (CONTRACT.md section 7). */
const OPTIONAL_COLUMNS: ReadonlySet<string> = new Set(['id', 'modifiedAt']);
const LF = 0x0a;
const CR = 0x0d;

interface Row {
  readonly cells: readonly string[];
  /** Byte offset just past the row's record delimiter (or the end of the input). */
  readonly end: number;
}

/**
 * Turns byte offsets into 1-based line numbers. csv-parse's own line counter counts a CRLF
 * inside a quoted field as two lines and gives the line a record ends on, not the one it
 * starts on, so lines are counted here from the byte offsets csv-parse reports instead.
 */
function lineCounter(bytes: Buffer) {
  let offset = 0;
  let line = 1;
  return {
    /** The line of the first record starting at or after `from`, past any blank lines. */
    startLine(from: number): number {
      let start = from;
      while (bytes[start] === LF || (bytes[start] === CR && bytes[start + 1] === LF)) {
        start += bytes[start] === LF ? 1 : 2;
      }
      for (; offset < start; offset += 1) {
        if (bytes[offset] === LF) line += 1;
      }
      return line;
    },
  };
}

/** csv-parse's message names its own (sometimes wrong) line: say what is wrong in our words. */
function syntaxFault(error: CsvError, columns: number): string {
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted field is never closed';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'a closing quote must be followed by a comma or the end of the line (write a quote inside a quoted field as "")';
    case 'INVALID_OPENING_QUOTE':
      return 'a quote inside an unquoted field (quote the whole field and double the quote: "a ""b"" c")';
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH': {
      const got = Array.isArray(error.record) ? `${error.record.length}` : 'a different number of';
      return `the record has ${got} fields but the header has ${columns}`;
    }
    default:
      return `not valid CSV (${error.code})`;
  }
}

function parseRows(bytes: Buffer): { rows: Row[]; fault: CsvError | undefined } {
  const rows: Row[] = [];
  try {
    parse(bytes, {
      // RFC 4180: comma, double quotes, "" for a quote inside a quoted field; CRLF, and LF too.
      record_delimiter: ['\r\n', '\n'],
      skip_empty_lines: true,
      on_record: (cells, context) => {
        rows.push({ cells, end: context.bytes });
        return null;
      },
    });
    return { rows, fault: undefined };
  } catch (error) {
    if (error instanceof CsvError) return { rows, fault: error };
    throw error;
  }
}

function headerFault(header: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const name of header) {
    if (!KNOWN_COLUMNS.has(name)) {
      return `unknown column ${JSON.stringify(name)} (columns are Meal fields: ${MEAL_FIELDS.join(', ')})`;
    }
    if (seen.has(name)) return `column ${JSON.stringify(name)} appears twice`;
    seen.add(name);
  }
  const missing = MEAL_FIELDS.filter((name) => !seen.has(name) && !OPTIONAL_COLUMNS.has(name));
  if (missing.length > 0) return `missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`;
  return undefined;
}

/**
 * Reads CSV (RFC 4180, https://www.rfc-editor.org/rfc/rfc4180) whose first row names the
 * columns, in any order, with the Meal field names. Each record's fields are its cells as
 * strings. A syntax error stops the reading: nothing after it can be trusted.
 */
export function readCsv(text: string): RawRecords {
  const bytes = Buffer.from(text, 'utf8');
  const { rows, fault } = parseRows(bytes);
  const lines = lineCounter(bytes);
  const [header, ...data] = rows;
  if (header === undefined) {
    const errors = fault === undefined ? [] : [{ line: lines.startLine(0), message: syntaxFault(fault, 0) }];
    return { records: [], errors };
  }
  const badHeader = headerFault(header.cells);
  if (badHeader !== undefined) return { records: [], errors: [{ line: lines.startLine(0), message: badHeader }] };
  const records: RawRecord[] = [];
  const errors: LineError[] = [];
  let previousEnd = header.end;
  for (const row of data) {
    const fields = Object.fromEntries(header.cells.map((name, index) => [name, row.cells[index]]));
    records.push({ line: lines.startLine(previousEnd), fields });
    previousEnd = row.end;
  }
  if (fault !== undefined) {
    errors.push({ line: lines.startLine(previousEnd), message: syntaxFault(fault, header.cells.length) });
  }
  return { records, errors };
}
