/** A JSON object whose fields are not yet known: what a message or a parsed body is checked as. */
export type JsonRecord = Record<string, unknown>;

/** True for any object (not null): its fields can then be read and checked one by one. */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null;
}
