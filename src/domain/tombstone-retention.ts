/**
 * How long tombstones are kept (docs/api.md#the-call): at least 30 days by default, 0 to
 * 3650 as configured (`--tombstone-days`). One rule for `serve` (at start and hourly) and
 * `meals prune`.
 */
export const DEFAULT_TOMBSTONE_DAYS = 30;
export const MAX_TOMBSTONE_DAYS = 3650;

const DAY_MS = 86_400_000;

/** Tombstones with modifiedAt before this instant are prunable (0 days: all of them, now). */
export function tombstonePruneCutoff(now: number, tombstoneDays: number): number {
  return now - tombstoneDays * DAY_MS;
}
