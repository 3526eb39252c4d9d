/**
 * `sourceVersion` (docs/host-api.md#ordering-saves-sourceversion): a number the app's back end
 * gives each save of a meal (its row version, or its own update time in ms). The store keeps the
 * newest it has seen per meal, live or tombstone, so that a retried or late write never puts an
 * older version over a newer one. One set of rules for the host API, `meals import` and
 * `meal-export/host`.
 */

/** The largest version: 2^53 - 1, the largest integer every JSON reader keeps exactly. */
export const MAX_SOURCE_VERSION = Number.MAX_SAFE_INTEGER;

/**
 * The words refusing a version out of range, one text for the host API, the import and
 * `meal-export/host`: with `got`, what was given as the caller shows it; without, a sentence.
 */
export function sourceVersionFault(got?: string): string {
  const rule = `sourceVersion must be an integer from 0 to ${MAX_SOURCE_VERSION}`;
  return got === undefined ? `${rule}.` : `${rule}, got ${got}`;
}

/** True for an integer 0 … 2^53 - 1. */
export function isSourceVersion(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A query parameter's text as a version: plain decimal digits only, else undefined. */
export function parseSourceVersionText(text: string): number | undefined {
  if (!/^\d{1,16}$/.test(text)) return undefined;
  const value = Number(text);
  return isSourceVersion(value) ? value : undefined;
}

/**
 * A write carrying `incoming` changes nothing when the store already holds that version or a
 * newer one for the meal. A write without a version always applies.
 */
export function isStaleWrite(incoming: number | undefined, stored: number | null | undefined): boolean {
  return incoming !== undefined && stored !== null && stored !== undefined && incoming <= stored;
}

/**
 * True when a write carries the very version the store holds: with a record equal to the stored
 * meal (or a delete meeting the tombstone it made) it is a retry, answered `unchanged` rather
 * than `stale`, so that a back end can tell "already done" from "overtaken".
 */
export function isRetry(incoming: number | undefined, stored: number | null | undefined): boolean {
  return incoming !== undefined && incoming === stored;
}

/** The version the store keeps after a write that was not stale: the new one, else the one it had. */
export function keptSourceVersion(incoming: number | undefined, stored: number | null | undefined): number | null {
  return incoming ?? stored ?? null;
}

/** True when a write that is no change (an unchanged save, a second delete) still has a newer version to record. */
export function recordsNewerVersion(incoming: number | undefined, stored: number | null | undefined): boolean {
  return incoming !== undefined && (stored === null || stored === undefined || incoming > stored);
}
