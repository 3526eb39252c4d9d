import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { KeyAuthenticator } from '../keys/key-authenticator.js';

export interface KeyUseFlushOptions {
  /** How often the noted uses are written while serving (default 5 s: docs/operations.md#limits-across-restarts). */
  readonly everyMs?: number;
  /** How long the last flush, on a graceful close, is tried again while it fails (default 5 s). */
  readonly lastFlushForMs?: number;
}

export interface KeyUseFlush {
  /** Stops the timer and writes what is left, trying again while the store refuses. */
  stop(): Promise<void>;
}

const RETRY_PAUSE_MS = 100;

/**
 * Writes the key uses the authenticator noted (lastUsedAt, and the accepted requests per key and day
 * that the app page charts and a restarted limiter resumes from: ratelimit/used-quota.ts). Every 5 s
 * while serving, so a crash forgets at most those 5 s, and once more after the last response of a
 * graceful close, so the counts are then exact (docs/operations.md#limits-across-restarts). One flush
 * at a time, so a failed one has put its uses back (key-authenticator.ts) before the next takes them.
 * The last is retried for up to `lastFlushForMs`: a SQLite writer beside (an import) refuses a serving
 * process's background write at once, not to block its event loop, which no longer matters then.
 */
export function startKeyUseFlush(
  authenticator: KeyAuthenticator,
  log: FastifyBaseLogger,
  options: KeyUseFlushOptions = {},
): KeyUseFlush {
  const everyMs = options.everyMs ?? 5_000;
  const lastFlushForMs = options.lastFlushForMs ?? 5_000;
  let previous: Promise<void> = Promise.resolve();

  function flush(): Promise<void> {
    const next = previous.then(() => authenticator.flushUses());
    previous = next.catch(() => {});
    return next;
  }

  const timer = setInterval(() => {
    flush().catch((err: unknown) => log.warn({ err }, 'could not record key use: trying again at the next flush'));
  }, everyMs);
  // The timer must not keep a stopping process alive.
  timer.unref();

  return {
    async stop() {
      clearInterval(timer);
      const deadline = performance.now() + lastFlushForMs;
      for (;;) {
        try {
          await flush();
          return;
        } catch (err) {
          if (performance.now() >= deadline) {
            log.error({ err }, 'could not record key use on close: the uses since the last flush are lost');
            return;
          }
          await sleep(RETRY_PAUSE_MS);
        }
      }
    },
  };
}
