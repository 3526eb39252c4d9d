import type { FastifyBaseLogger } from 'fastify';
import { type Logger, pino } from 'pino';
import { loggedUrl } from './domain/api-key.js';

function loggerOn(level: string, destination: LogDestination): Logger {
  return pino(
    {
      level,
      // A key or a Connect code must never reach the logs, not even one sent in a query string by mistake.
      serializers: {
        req: (req: { method?: string; url?: string }) => ({ method: req.method, url: loggedUrl(req.url ?? '') }),
      },
    },
    destination,
  );
}

/** The process's logger: JSON lines on stderr (stdout is for the commands' output). */
export function createLogger(level: string): Logger {
  return loggerOn(level, process.stderr);
}

/** Where log lines go: the process's stderr, or what a process that embeds the service gives. */
export interface LogDestination {
  write(line: string): unknown;
}

/** A logger whose lines are held while the service starts. */
export interface StartupLogger {
  readonly log: Logger;
  /** Writes the lines held so far, and every later one as it comes. */
  release(): void;
  /**
   * While the lines are held: drops them and every later one, for the start failed and says why
   * in one line. After release, nothing (a failure then is no start's).
   */
  discard(): void;
}

/**
 * `serve`'s logger: its lines (the certificate, `Server listening at`, …) are held until every
 * listener is bound, so that a start that fails (a port in use) is the one line of
 * docs/cli.md on stderr, with no JSON before it.
 */
export function createStartupLogger(level: string, destination: LogDestination = process.stderr): StartupLogger {
  let mode: 'hold' | 'write' | 'drop' = 'hold';
  let held: string[] = [];
  const log = loggerOn(level, {
    write(line: string) {
      if (mode === 'write') destination.write(line);
      else if (mode === 'hold') held.push(line);
    },
  });
  return {
    log,
    release() {
      if (mode !== 'hold') return;
      mode = 'write';
      if (held.length > 0) destination.write(held.join(''));
      held = [];
    },
    discard() {
      if (mode !== 'hold') return;
      mode = 'drop';
      held = [];
    },
  };
}

/** The one line logged per request at info level and below (listener/request-report.ts writes it for every listener). */
export function logRequest(
  log: FastifyBaseLogger,
  method: string | undefined,
  url: string,
  status: number | null,
  ms: number,
  message = 'request',
  extra?: Readonly<Record<string, unknown>>,
): void {
  const fields = { method, url: loggedUrl(url), status, ms: Math.round(ms) };
  log.info(extra === undefined ? fields : { ...fields, ...extra }, message);
}
