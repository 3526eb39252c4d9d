import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

// Read from beside this module: src/web/static when run from source, dist/web/static once built
// (the build copies the folder).
const STATIC_DIR = new URL('./static/', import.meta.url);

const FILES = [
  { path: '/static/app.css', file: 'app.css', type: 'text/css; charset=utf-8' },
  { path: '/static/copy-button.js', file: 'copy-button.js', type: 'text/javascript; charset=utf-8' },
  { path: '/static/csv-range.js', file: 'csv-range.js', type: 'text/javascript; charset=utf-8' },
  { path: '/static/webhook-test-result.js', file: 'webhook-test-result.js', type: 'text/javascript; charset=utf-8' },
  { path: '/static/local-time.js', file: 'local-time.js', type: 'text/javascript; charset=utf-8' },
  { path: '/static/session-end.js', file: 'session-end.js', type: 'text/javascript; charset=utf-8' },
  { path: '/static/favicon.svg', file: 'favicon.svg', type: 'image/svg+xml' },
  // Where a browser looks for an icon when a page names none (a download, an error page of its own).
  { path: '/favicon.ico', file: 'favicon.svg', type: 'image/svg+xml' },
] as const;

/** The page's one stylesheet, its scripts and its icon, read once at start. */
export function registerStaticFiles(app: FastifyInstance): void {
  for (const { path, file, type } of FILES) {
    const body = readFileSync(new URL(file, STATIC_DIR));
    app.get(path, (_request, reply) =>
      reply.header('content-type', type).header('cache-control', 'no-cache').send(body),
    );
  }
}
