import { type DurationClock, durationNow } from '../domain/duration-clock.js';
import { clientGroupOf } from './client-group.js';

/**
 * What this process has learnt from the brute-force guard: the client groups (clientGroupOf)
 * it has blocked, and until when. Read before a key is looked up: a request
 * from a blocked group gets its 429 without asking the guard again (a Redis call, or an IPC
 * message to the cluster's primary), and its key is looked up in a paced batch rather than
 * at once (keys/key-authenticator.ts). The guard's own answer is unchanged: it does not
 * count attempts while blocked (ratelimit/rate-limiter.ts), so the block ends here when it
 * ends there, and the next failure after it asks the guard again.
 */
export interface KnownBlocks {
  /** Groups remembered now (at most maxGroups): 0 lets a caller skip reading the address. */
  readonly size: number;
  /** The ms the address's group stays blocked, 0 when it is not known to be. Memory only. */
  remainingMs(address: string, now: number): number;
  /** Notes the guard's answer for the address: blocked for `waitMs` from now. */
  note(address: string, waitMs: number, now: number): void;
}

export interface KnownBlocksOptions {
  /** The most groups remembered; past it the oldest block is forgotten (default 100,000). */
  readonly maxGroups?: number;
  /** Tests only: 'caller' measures on the `now` given (default 'monotonic'). */
  readonly clock?: DurationClock;
}

export function createKnownBlocks(options: KnownBlocksOptions = {}): KnownBlocks {
  const maxGroups = options.maxGroups ?? 100_000;
  const clock = options.clock ?? 'monotonic';
  // group -> end of its block on the duration clock; Map order is the order blocks were noted.
  const blockedUntil = new Map<string, number>();

  return {
    get size() {
      return blockedUntil.size;
    },
    remainingMs(address, now) {
      const group = clientGroupOf(address);
      const until = blockedUntil.get(group);
      if (until === undefined) return 0;
      const remaining = until - durationNow(clock, now);
      if (remaining > 0) return remaining;
      blockedUntil.delete(group);
      return 0;
    },
    note(address, waitMs, now) {
      const at = durationNow(clock, now);
      const group = clientGroupOf(address);
      blockedUntil.delete(group);
      // Ended blocks are dropped first; then, if still full, the oldest noted.
      for (const [other, until] of blockedUntil) {
        if (blockedUntil.size < maxGroups && until > at) break;
        blockedUntil.delete(other);
      }
      blockedUntil.set(group, at + waitMs);
    },
  };
}
