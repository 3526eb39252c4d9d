import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../errors.js';

/** How long a store may stay unavailable to a background task before the log says so. */
export const QUIET_OUTAGE_MS = 30_000;

/**
 * What a background task (the webhook sender reading its outbox) logs when the store does not
 * answer. A store that is busy for a moment (SQLite's write lock held by another process, a
 * PostgreSQL fail-over) is normal: it is tried again quietly (one debug line a time), a warning
 * is written once when it has lasted `QUIET_OUTAGE_MS`, with how long and the driver's code but
 * no stack trace, and one line when it answers again after that. Any other failure is a bug
 * and is warned about at once, with its stack.
 */
export interface OutageLog {
  /** A failure of the task's call; `retryMs`: when it is tried again. */
  failed(error: unknown, retryMs: number): void;
  /** A call that went through. */
  succeeded(): void;
}

function driverCode(error: AppError): string | undefined {
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function createOutageLog(
  log: FastifyBaseLogger,
  what: string,
  now: () => number = () => performance.now(),
): OutageLog {
  let since: number | undefined;
  let warned = false;
  return {
    failed(error, retryMs) {
      if (!(error instanceof AppError) || error.code !== 'unavailable') {
        log.warn({ err: error }, `${what}: failed; trying again in ${retryMs / 1000} s`);
        return;
      }
      since ??= now();
      const lastedMs = now() - since;
      const fields = { code: driverCode(error), reason: error.message, lastedS: Math.round(lastedMs / 1000) };
      if (lastedMs >= QUIET_OUTAGE_MS && !warned) {
        warned = true;
        log.warn(
          fields,
          `${what}: the store has not answered for ${fields.lastedS} s; still trying every ${retryMs / 1000} s`,
        );
        return;
      }
      log.debug(fields, `${what}: the store is busy; trying again in ${retryMs / 1000} s`);
    },
    succeeded() {
      if (since === undefined) return;
      if (warned) log.info({ lastedS: Math.round((now() - since) / 1000) }, `${what}: the store answers again`);
      since = undefined;
      warned = false;
    },
  };
}
