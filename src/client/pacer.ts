import { setTimeout as delay } from 'node:timers/promises';
import type { WaitEvent } from './types.js';
import { intervalFromPolicy } from './wait-times.js';

/** Waits, telling the client's listener first. Rejects with an AbortError when `signal` aborts. */
export type Waiter = (event: WaitEvent, signal: AbortSignal | undefined) => Promise<void>;

export function createWaiter(onWait: ((event: WaitEvent) => void) | undefined): Waiter {
  return async (event, signal) => {
    if (event.ms <= 0) return;
    onWait?.(event);
    await delay(event.ms, undefined, signal === undefined ? {} : { signal });
  };
}

export interface PacerOptions {
  /** A fixed interval; when absent, 3000 ms until the server announces its own in RateLimit-Policy. */
  readonly minIntervalMs?: number;
  readonly wait: Waiter;
  readonly now?: () => number;
}

/** Keeps the per-key interval between accepted requests (CONTRACT.md section 4). */
export interface Pacer {
  /** Resolves when the next request may be sent. */
  ready(signal: AbortSignal | undefined): Promise<void>;
  /** Notes an answer the server counted (anything but 429), with its headers. */
  noteAccepted(headers: Readonly<Record<string, string>>): void;
}

export const DEFAULT_MIN_INTERVAL_MS = 3000;

/**
 * The interval is measured from the arrival of the previous counted answer: the server
 * accepted that request before answering, so waiting from the answer is always enough.
 */
export function createPacer(options: PacerOptions): Pacer {
  const now = options.now ?? Date.now;
  let intervalMs = options.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS;
  let lastAcceptedAt: number | undefined;
  return {
    async ready(signal) {
      if (lastAcceptedAt === undefined) return;
      await options.wait({ reason: 'interval', ms: lastAcceptedAt + intervalMs - now() }, signal);
    },
    noteAccepted(headers) {
      lastAcceptedAt = now();
      if (options.minIntervalMs !== undefined) return;
      const announced = intervalFromPolicy(headers['ratelimit-policy']);
      if (announced !== undefined) intervalMs = announced;
    },
  };
}
