import type { FastifyBaseLogger } from 'fastify';
import { type Logger, pino } from 'pino';
import { redactApiKeys } from './domain/api-key.js';

/** The process's logger: JSON lines on stderr (stdout is for the commands' output). */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      // A key must never reach the logs, not even one sent in a query string by mistake.
      serializers: {
        req: (req: { method?: string; url?: string }) => ({ method: req.method, url: redactApiKeys(req.url ?? '') }),
      },
    },
    process.stderr,
  );
}

/** The one line logged per request at info level and below (Fastify's routes and /v1/meals alike). */
export function logRequest(
  log: FastifyBaseLogger,
  method: string | undefined,
  url: string,
  status: number | null,
  ms: number,
): void {
  log.info({ method, url: redactApiKeys(url), status, ms: Math.round(ms) }, 'request');
}
