import { collectRawItems, MAX_RECORD_BYTES, overlongRecord, type RawItem, type RawRecords } from './raw-record.js';

const OVERLONG = overlongRecord('is this JSON Lines, one record per line?');

/** Past MAX_RECORD_BYTES in UTF-8; counted only when the UTF-16 length says it may be. */
function isOverlong(text: string): boolean {
  return (
    text.length > MAX_RECORD_BYTES || (text.length * 3 > MAX_RECORD_BYTES && Buffer.byteLength(text) > MAX_RECORD_BYTES)
  );
}

/** A JSON.parse message is about one line, but may quote it: keep the report to one short line. */
function jsonFault(error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return `Not valid JSON (${reason.length > 100 ? `${reason.slice(0, 97)}...` : reason}).`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** One line's record or fault; undefined for a blank line, which is skipped. */
function readLine(raw: string, line: number): RawItem | undefined {
  const content = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (isOverlong(content)) return { line, message: OVERLONG };
  if (content.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (error) {
    return { line, message: jsonFault(error) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { line, message: `A record must be a JSON object, got ${kindOf(value)}.` };
  }
  return { line, fields: value as Record<string, unknown> };
}

/**
 * Reads JSON Lines (https://jsonlines.org/) as text arrives: one JSON object per line, LF or CRLF;
 * blank lines are skipped. Only the unfinished last line is kept between pieces, so an import holds
 * one line at a time however long the file (docs/cli.md#memory-and-locking), and a line past
 * MAX_RECORD_BYTES is a fault at once, its bytes dropped until it ends. Every line is read, so that
 * all the bad ones are counted, not the first.
 */
export function createJsonlReader() {
  let rest = '';
  let line = 0;
  /** The unfinished line passed the bound: its fault is given, the rest of it is dropped. */
  let overlong = false;
  return {
    /** The records and faults of the lines that `text` completes, and the fault of one it makes too long. */
    *push(text: string): Generator<RawItem> {
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        line += 1;
        // The first line ends what the last piece began.
        const item = overlong ? undefined : readLine(rest + text.slice(start, end), line);
        rest = '';
        overlong = false;
        if (item !== undefined) yield item;
        start = end + 1;
      }
      if (overlong) return;
      rest += start === 0 ? text : text.slice(start);
      if (!isOverlong(rest)) return;
      overlong = true;
      rest = '';
      yield { line: line + 1, message: OVERLONG };
    },
    /** The last line, when the input does not end with a line end. */
    *end(): Generator<RawItem> {
      const item = overlong || rest === '' ? undefined : readLine(rest, line + 1);
      rest = '';
      overlong = false;
      if (item !== undefined) yield item;
    },
  };
}

/** A whole JSON Lines text read at once (a pull's local copy, tests). */
export function readJsonl(text: string): RawRecords {
  const reader = createJsonlReader();
  return collectRawItems([...reader.push(text), ...reader.end()]);
}

/**
 * JSON Lines read from pieces of text as they come (an import's file or stdin), the records and
 * faults of each piece together: a reader that checks them takes a piece's at once, rather than
 * one await each (an import's records pass through one async step, not two).
 */
export async function* readJsonlGroups(pieces: AsyncIterable<string>): AsyncGenerator<readonly RawItem[]> {
  const reader = createJsonlReader();
  for await (const text of pieces) yield [...reader.push(text)];
  yield [...reader.end()];
}

/** readJsonlGroups' items one at a time. */
export async function* readJsonlStream(pieces: AsyncIterable<string>): AsyncGenerator<RawItem> {
  for await (const group of readJsonlGroups(pieces)) yield* group;
}
