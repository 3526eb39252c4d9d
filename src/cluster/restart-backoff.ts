/**
 * How long the primary waits before it starts a worker again after an unexpected exit: at
 * once-ish for a worker that had run a while, then doubling for each exit in a row that came
 * soon after its start (a worker crashing on start must not spin the CPU), up to 30 s.
 */
export const RESTART_BACKOFF = {
  firstDelayMs: 100,
  maxDelayMs: 30_000,
  /** A worker that ran this long is healthy again: its next crash restarts at the first delay. */
  stableAfterMs: 30_000,
} as const;

/** The delay before the restart that follows `quickExits` quick exits in a row (1 or more). */
export function restartDelayMs(quickExits: number): number {
  const doublings = Math.max(0, quickExits - 1);
  return Math.min(RESTART_BACKOFF.maxDelayMs, RESTART_BACKOFF.firstDelayMs * 2 ** Math.min(doublings, 20));
}

/** Counts a worker's exit: a run shorter than `stableAfterMs` adds to the quick exits in a row. */
export function nextQuickExits(quickExits: number, ranMs: number): number {
  return ranMs >= RESTART_BACKOFF.stableAfterMs ? 1 : quickExits + 1;
}
