/**
 * A key's limiter state as it moves between the processes of `serve --workers N`
 * (cluster-limiter-host.ts): from the primary to the worker that takes the key's lease, and
 * back. No instant on a process's own monotonic clock crosses: the last acceptance travels as
 * "this long ago", which the receiver places on its clock when the message arrives, so the
 * message's trip is added to the interval, never taken from it.
 */
export interface KeyHandover {
  /** Ms since the key's last accepted request, when its interval may still run; null: none. */
  readonly sinceAcceptedMs: number | null;
  /** Accepted requests on the day that ends at `dayResetAt`. */
  readonly usedToday: number;
  /** Epoch ms of the reset that ends the day `usedToday` counts. */
  readonly dayResetAt: number;
}

export function isKeyHandover(value: unknown): value is KeyHandover {
  if (typeof value !== 'object' || value === null) return false;
  const { sinceAcceptedMs, usedToday, dayResetAt } = value as Record<string, unknown>;
  return (
    (sinceAcceptedMs === null || typeof sinceAcceptedMs === 'number') &&
    typeof usedToday === 'number' &&
    typeof dayResetAt === 'number'
  );
}
