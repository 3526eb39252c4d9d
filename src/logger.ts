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
