/**
 * What the file readers hand to validation: each record's raw field values with the line it
 * starts on, and the faults found while reading, so that a bad record is reported by its line
 * (docs/cli.md#formats).
 */
export interface RawRecord {
  /** 1-based line of the input where the record starts. */
  readonly line: number;
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface LineError {
  readonly line: number;
  readonly message: string;
  /** The record's field at fault; absent when the line is no record at all (not JSON, too long). */
  readonly field?: string;
}

export interface RawRecords {
  readonly records: readonly RawRecord[];
  readonly errors: readonly LineError[];
}

/**
 * The longest record a file may hold, in bytes of UTF-8. A valid meal is far shorter (its two
 * texts are at most 10 000 characters each: under 250 KB even written as JSON escapes), so
 * this refuses no meal; it bounds what a reader holds when a line never ends or a quote is
 * never closed, so that an import stays in bounded memory whatever it is given.
 */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** The fault of a record past MAX_RECORD_BYTES; `hint`: what the file may be instead. */
export function overlongRecord(hint: string): string {
  return `A record is longer than ${MAX_RECORD_BYTES / 1024 / 1024} MiB (${hint}).`;
}

/** One step of a streamed read, in line order: a record, or a fault found while reading. */
export type RawItem = RawRecord | LineError;

export function isLineError(item: RawItem): item is LineError {
  return 'message' in item;
}

/** Sorts a whole read's records and faults into the two lists of RawRecords. */
export function collectRawItems(items: Iterable<RawItem>): RawRecords {
  const records: RawRecord[] = [];
  const errors: LineError[] = [];
  for (const item of items) {
    if (isLineError(item)) errors.push(item);
    else records.push(item);
  }
  return { records, errors };
}
