import { collectRawItems, type RawItem, type RawRecords } from './raw-record.js';

/** A JSON.parse message is about one line, but may quote it: keep the report to one short line. */
function jsonFault(error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return `not valid JSON (${reason.length > 100 ? `${reason.slice(0, 97)}...` : reason})`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** One line's record or fault; undefined for a blank line, which is skipped. */
function readLine(raw: string, line: number): RawItem | undefined {
  const content = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (content.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (error) {
    return { line, message: jsonFault(error) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { line, message: `a record must be a JSON object, got ${kindOf(value)}` };
  }
  return { line, fields: value as Record<string, unknown> };
}

/**
 * Reads JSON Lines (https://jsonlines.org/) as text arrives: one JSON object per line, LF or
 * CRLF; blank lines are skipped. Only the unfinished last line is kept between pieces, so an
 * import holds one line at a time however long the file (issue 17, item 7). Every line is
 * read, so that all the bad ones are counted, not the first.
 */
export function createJsonlReader() {
  let rest = '';
  let line = 0;
  return {
    /** The records and faults of the lines that `text` completes. */
    *push(text: string): Generator<RawItem> {
      let end = text.indexOf('\n');
      if (end === -1) {
        rest += text;
        return;
      }
      // The first line ends what the last piece began.
      let raw = rest + text.slice(0, end);
      for (;;) {
        line += 1;
        const item = readLine(raw, line);
        if (item !== undefined) yield item;
        const start = end + 1;
        end = text.indexOf('\n', start);
        if (end === -1) {
          rest = text.slice(start);
          return;
        }
        raw = text.slice(start, end);
      }
    },
    /** The last line, when the input does not end with a line end. */
    *end(): Generator<RawItem> {
      if (rest === '') return;
      const item = readLine(rest, line + 1);
      rest = '';
      if (item !== undefined) yield item;
    },
  };
}

/** A whole JSON Lines text read at once (a pull's local copy, tests). */
export function readJsonl(text: string): RawRecords {
  const reader = createJsonlReader();
  return collectRawItems([...reader.push(text), ...reader.end()]);
}

/** JSON Lines read from pieces of text as they come (an import's file or stdin). */
export async function* readJsonlStream(pieces: AsyncIterable<string>): AsyncGenerator<RawItem> {
  const reader = createJsonlReader();
  for await (const text of pieces) yield* reader.push(text);
  yield* reader.end();
}
