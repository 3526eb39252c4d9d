import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

// Read from beside this module: src/web/static when run from source, dist/web/static once built
// (the build copies the folder, with its subfolders).
const STATIC_DIR = new URL('./static/', import.meta.url);

// The stylesheet is kept in parts by job (static/styles/) but sent as one file: one request, and
// the same cascade as one sheet, since the parts are joined in this order (a later rule wins a tie).
const STYLESHEET_PARTS = [
  'base.css',
  'header.css',
  'controls.css',
  'forms.css',
  'notices.css',
  'keys.css',
  'webhooks.css',
  'chart.css',
  'old-keys.css',
  'text.css',
  'phone.css',
] as const;

const FILES = [
  { path: '/static/copy-button.js', file: 'copy-button.js', type: 'text/javascript; charset=utf-8' },
  { path: '/static/csv-range.js', file: 'csv-range.js', type: 'text/javascript; charset=utf-8' },
  { path: '/static/webhook-test-result.js', file: 'webhook-test-result.js', type: 'text/javascript; charset=utf-8' },
  { path: '/static/local-time.js', file: 'local-time.js', type: 'text/javascript; charset=utf-8' },
  { path: '/static/session-end.js', file: 'session-end.js', type: 'text/javascript; charset=utf-8' },
  { path: '/static/favicon.svg', file: 'favicon.svg', type: 'image/svg+xml' },
  // Where a browser looks for an icon when a page names none (a download, an error page of its own).
  { path: '/favicon.ico', file: 'favicon.svg', type: 'image/svg+xml' },
] as const;

/** The page's stylesheet: its parts joined, in their listed order. */
function readStylesheet(): Buffer {
  return Buffer.concat(STYLESHEET_PARTS.map((part) => readFileSync(new URL(`styles/${part}`, STATIC_DIR))));
}

/** The page's one stylesheet, its scripts and its icon, read once at start. */
export function registerStaticFiles(app: FastifyInstance): void {
  const served = [
    { path: '/static/app.css', type: 'text/css; charset=utf-8', body: readStylesheet() },
    ...FILES.map(({ path, file, type }) => ({ path, type, body: readFileSync(new URL(file, STATIC_DIR)) })),
  ];
  for (const { path, type, body } of served) {
    app.get(path, (_request, reply) =>
      reply.header('content-type', type).header('cache-control', 'no-cache').send(body),
    );
  }
}
