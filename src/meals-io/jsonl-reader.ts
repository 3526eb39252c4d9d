import type { LineError, RawRecord, RawRecords } from './raw-record.js';

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

/**
 * Reads JSON Lines (https://jsonlines.org/): one JSON object per line, LF or CRLF. Blank
 * lines are skipped. Every line is read, so that all the bad ones are counted, not the first.
 */
export function readJsonl(text: string): RawRecords {
  const records: RawRecord[] = [];
  const errors: LineError[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    const content = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (content.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch (error) {
      errors.push({ line, message: jsonFault(error) });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      errors.push({ line, message: `a record must be a JSON object, got ${kindOf(value)}` });
      return;
    }
    records.push({ line, fields: value as Record<string, unknown> });
  });
  return { records, errors };
}
