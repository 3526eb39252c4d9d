import { setTimeout as delay } from 'node:timers/promises';
import type { WaitEvent } from './types.js';
import { intervalFromPolicy } from './wait-times.js';

/** Waits, telling the client's listener first (every retry, even one without a delay). Rejects with an AbortError when `signal` aborts. */
export type Waiter = (event: WaitEvent, signal: AbortSignal | undefined) => Promise<void>;

export function createWaiter(onWait: ((event: WaitEvent) => void) | undefined): Waiter {
  return async (event, signal) => {
    // A retry is told even without a delay (full jitter may draw 0 ms): a failure is news.
    if (event.ms <= 0 && event.reason !== 'retry') return;
    onWait?.(event);
    if (event.ms > 0) await delay(event.ms, undefined, signal === undefined ? {} : { signal });
  };
}

export interface PacerOptions {
  /** A fixed interval; when absent, 3000 ms until the server announces its own in RateLimit-Policy. */
  readonly minIntervalMs?: number;
  readonly wait: Waiter;
  readonly now?: () => number;
}

/** Keeps the per-key interval between accepted requests (docs/api.md#limits). */
export interface Pacer {
  /** Resolves when the next request may be sent, with the pacer's clock at that moment. */
  ready(signal: AbortSignal | undefined): Promise<number>;
  /**
   * Notes an answer the server counted (anything but 429), with its headers. `heldFrom`: for a
   * request the server may have held (a long poll), the instant `ready` resolved with before it
   * was sent.
   */
  noteAccepted(headers: Readonly<Record<string, string>>, heldFrom?: number): void;
  /**
   * Notes a request sent at `sentAt` (the instant `ready` resolved with) that got no answer: it
   * was aborted, or the connection failed. The server may have counted it on arrival, so the
   * next request keeps the interval from then, as after a held one, rather than meet a 429.
   */
  noteUnanswered(sentAt: number): void;
}

export const DEFAULT_MIN_INTERVAL_MS = 3000;

/**
 * How long after it was sent a long poll is taken to have been accepted at the latest: the
 * server accepts a request as it arrives, before it holds it, so this is a round trip (and a
 * TLS handshake on a new connection) with room to spare. Too short would cost a 429 (not
 * counted) and its Retry-After; too long, a little latency after a short hold.
 */
export const HELD_ACCEPTANCE_MARGIN_MS = 1000;

/**
 * The interval is measured from the arrival of the previous counted answer: the server
 * accepted that request before answering, so waiting from the answer is always enough. A
 * long poll is accepted when it arrives and may be answered two minutes later; the server
 * measures the interval between acceptances (docs/api.md#changes-as-they-happen-wait), so it is
 * measured from shortly after such a request was sent: after a hold of 4 s or more the next
 * request goes at once.
 */
export function createPacer(options: PacerOptions): Pacer {
  const now = options.now ?? Date.now;
  let intervalMs = options.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS;
  let lastAcceptedAt: number | undefined;
  /** At the latest, when a request sent at `sentAt` and still unanswered now was accepted. */
  const acceptedBy = (sentAt: number) => Math.min(now(), sentAt + HELD_ACCEPTANCE_MARGIN_MS);
  return {
    async ready(signal) {
      if (lastAcceptedAt !== undefined) {
        await options.wait({ reason: 'interval', ms: lastAcceptedAt + intervalMs - now() }, signal);
      }
      return now();
    },
    noteAccepted(headers, heldFrom) {
      lastAcceptedAt = heldFrom === undefined ? now() : acceptedBy(heldFrom);
      if (options.minIntervalMs !== undefined) return;
      const announced = intervalFromPolicy(headers['ratelimit-policy']);
      if (announced !== undefined) intervalMs = announced;
    },
    noteUnanswered(sentAt) {
      const maybeAcceptedAt = acceptedBy(sentAt);
      if (lastAcceptedAt === undefined || maybeAcceptedAt > lastAcceptedAt) lastAcceptedAt = maybeAcceptedAt;
    },
  };
}
