import { CsvError, type Options, type Parser, parse as parseStream } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { MEAL_FIELDS } from '../domain/meal.js';
import { MEAL_FIELD_TABLE } from '../domain/meal-fields.js';
import {
  collectRawItems,
  type LineError,
  MAX_RECORD_BYTES,
  overlongRecord,
  type RawItem,
  type RawRecords,
} from './raw-record.js';

const KNOWN_COLUMNS: ReadonlySet<string> = new Set([...MEAL_FIELDS, 'sourceVersion']);
/**
 * Columns a file may leave out: the store makes ids and sets modifiedAt, a save's
 * sourceVersion is optional, and a field added since the first (utcOffset) is null when a file
 * written before it has no column for it (docs/cli.md#formats).
 */
const OPTIONAL_COLUMNS: ReadonlySet<string> = new Set([
  ...MEAL_FIELD_TABLE.filter((field) => field.kind === 'id' || field.kind === 'clock' || field.since > 0).map(
    (field) => field.name,
  ),
  'sourceVersion',
]);
const LF = 0x0a;
const CR = 0x0d;

interface Row {
  readonly cells: readonly string[];
  /** Byte offset just past the row's record delimiter (or the end of the input). */
  readonly end: number;
}

// RFC 4180: comma, double quotes, "" for a quote inside a quoted field; CRLF, and LF too. The
// record bound keeps a quote never closed from holding the rest of the file.
const PARSE_OPTIONS = {
  record_delimiter: ['\r\n', '\n'],
  skip_empty_lines: true,
  max_record_size: MAX_RECORD_BYTES,
} satisfies Options;

/**
 * Turns byte offsets into 1-based line numbers. csv-parse's own line counter counts a CRLF
 * inside a quoted field as two lines and gives the line a record ends on, not the one it
 * starts on, so lines are counted here from the byte offsets csv-parse reports instead. The
 * bytes are fed as they are read and dropped once counted: only those between the last row
 * numbered and what the parser has read are kept. Pieces fed are joined when a row is
 * numbered, not as they come: a quote left open near the top makes no row until the end,
 * and joining at each piece would copy the whole rest of the file again for every piece.
 */
function createLineCounter() {
  let kept: Buffer<ArrayBufferLike> = Buffer.alloc(0);
  /** Fed since kept was last joined. */
  let fed: Buffer<ArrayBufferLike>[] = [];
  /** The offset in the input of kept[0]. */
  let keptFrom = 0;
  let line = 1;
  const byteAt = (offset: number) => kept[offset - keptFrom];
  return {
    feed(bytes: Buffer<ArrayBufferLike>): void {
      fed.push(bytes);
    },
    /** The line of the first record starting at or after `from`, past any blank lines. */
    startLine(from: number): number {
      if (fed.length > 0) {
        kept = kept.length === 0 && fed.length === 1 ? (fed[0] ?? kept) : Buffer.concat([kept, ...fed]);
        fed = [];
      }
      let start = from;
      while (byteAt(start) === LF || (byteAt(start) === CR && byteAt(start + 1) === LF)) {
        start += byteAt(start) === LF ? 1 : 2;
      }
      for (let offset = keptFrom; offset < start; offset += 1) {
        if (byteAt(offset) === LF) line += 1;
      }
      kept = kept.subarray(Math.min(kept.length, start - keptFrom));
      keptFrom = start;
      return line;
    },
  };
}

/** csv-parse's message names its own (sometimes wrong) line: say what is wrong in our words, as a sentence. */
function syntaxFault(error: CsvError, columns: number): string {
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'A quoted field is never closed.';
    case 'CSV_MAX_RECORD_SIZE':
      return overlongRecord('is a quoted field never closed?');
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'A closing quote must be followed by a comma or the end of the line (write a quote inside a quoted field as "").';
    case 'INVALID_OPENING_QUOTE':
      return 'A quote inside an unquoted field (quote the whole field and double the quote: "a ""b"" c").';
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH': {
      const got = Array.isArray(error.record) ? `${error.record.length}` : 'a different number of';
      return `The record has ${got} fields but the header has ${columns}.`;
    }
    default:
      return `Not valid CSV (${error.code}).`;
  }
}

/** `required`: columns beside the Meal fields that the file must have (`userId` for every user's import). */
function headerFault(header: readonly string[], required: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const name of header) {
    if (!KNOWN_COLUMNS.has(name) && !required.includes(name)) {
      const others = required.map((column) => `, and ${column}`).join('');
      return `Unknown column ${JSON.stringify(name)} (columns are Meal fields: ${MEAL_FIELDS.join(', ')}${others}).`;
    }
    if (seen.has(name)) return `Column ${JSON.stringify(name)} appears twice.`;
    seen.add(name);
  }
  const missing = [...required, ...MEAL_FIELDS].filter((name) => !seen.has(name) && !OPTIONAL_COLUMNS.has(name));
  if (missing.length > 0) return `Missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`;
  return undefined;
}

/**
 * What CSV rows mean, one at a time, whether the text is read whole or streamed: the first row
 * names the columns, in any order, with the Meal field names; each later row is a record of
 * its cells as strings. A bad header is the one fault of the file; a syntax error stops the
 * reading: nothing after it can be trusted. `done` says that nothing more is to be read.
 */
function createCsvRows(required: readonly string[] = []) {
  const lines = createLineCounter();
  let header: readonly string[] | undefined;
  let previousEnd = 0;
  const rows = {
    done: false,
    feed: (bytes: Buffer) => lines.feed(bytes),
    row({ cells, end }: Row): RawItem | undefined {
      if (rows.done) return undefined;
      if (header === undefined) {
        header = cells;
        previousEnd = end;
        const badHeader = headerFault(cells, required);
        if (badHeader === undefined) return undefined;
        rows.done = true;
        return { line: lines.startLine(0), message: badHeader };
      }
      const fields = Object.fromEntries(header.map((name, index) => [name, cells[index]]));
      const line = lines.startLine(previousEnd);
      previousEnd = end;
      return { line, fields };
    },
    fault(error: CsvError): LineError {
      rows.done = true;
      return { line: lines.startLine(previousEnd), message: syntaxFault(error, header?.length ?? 0) };
    },
  };
  return rows;
}

/** A whole CSV text read at once (a pull's local copy, tests). */
export function readCsv(text: string): RawRecords {
  const bytes = Buffer.from(text, 'utf8');
  const rows = createCsvRows();
  rows.feed(bytes);
  const items: RawItem[] = [];
  try {
    parse(bytes, {
      ...PARSE_OPTIONS,
      // Taken as they come: the parser throws on a syntax fault without the rows before it.
      on_record: (cells, context) => {
        const item = rows.row({ cells, end: context.bytes });
        if (item !== undefined) items.push(item);
        return null;
      },
    });
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    if (!rows.done) items.push(rows.fault(error));
  }
  return collectRawItems(items);
}

/** Hands `bytes` to the parser (the end of the input when undefined); rejects with its syntax fault. */
function parseMore(parser: Parser, bytes: Buffer | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error | null) => (error ? reject(error) : resolve());
    if (bytes === undefined) {
      parser.once('error', done);
      parser.end(() => done());
    } else parser.write(bytes, done);
  });
}

/**
 * CSV read from pieces of text as they come (an import's file or stdin), in bounded memory:
 * each piece is parsed before the next is read, and its rows are taken by on_record as they
 * are parsed (the parser's readable side would drop the rows before a syntax fault). The rows
 * and faults of each piece come together, as readJsonlGroups gives them.
 */
export async function* readCsvGroups(
  pieces: AsyncIterable<string>,
  /** Columns beside the Meal fields that the file must have. */
  required: readonly string[] = [],
): AsyncGenerator<readonly RawItem[]> {
  const rows = createCsvRows(required);
  const parsed: RawItem[] = [];
  const parser = parseStream({
    ...PARSE_OPTIONS,
    on_record: (cells, context) => {
      const item = rows.row({ cells, end: context.bytes });
      if (item !== undefined) parsed.push(item);
      return null;
    },
  });
  // A syntax fault comes back through parseMore; the 'error' event must not also go unheard.
  parser.on('error', () => undefined);
  try {
    for await (const text of pieces) {
      const bytes = Buffer.from(text, 'utf8');
      rows.feed(bytes);
      await parseMore(parser, bytes);
      yield parsed.splice(0);
      if (rows.done) return;
    }
    await parseMore(parser, undefined);
    yield parsed.splice(0);
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    yield rows.done ? parsed.splice(0) : [...parsed.splice(0), rows.fault(error)];
  } finally {
    parser.destroy();
  }
}
