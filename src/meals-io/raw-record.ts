/**
 * What the file readers hand to validation: each record's raw field values with the line it
 * starts on, and the faults found while reading, so that a bad record is reported by its line
 * (CONTRACT.md section 7, "meals import").
 */
export interface RawRecord {
  /** 1-based line of the input where the record starts. */
  readonly line: number;
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface LineError {
  readonly line: number;
  readonly message: string;
}

export interface RawRecords {
  readonly records: readonly RawRecord[];
  readonly errors: readonly LineError[];
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
