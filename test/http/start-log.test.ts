import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { appPageOrigin } from '../../src/serve/app-page-listener.js';
import type { ServeConfig } from '../../src/serve/serve-config.js';
import { logStoreAndLimiter } from '../../src/serve/start-log.js';

/** A logger that keeps what `info` was given, as one JSON text per call. */
function recordingLog(): { log: FastifyBaseLogger; lines: string[] } {
  const lines: string[] = [];
  const log = { info: (fields: object, message: string) => lines.push(JSON.stringify({ ...fields, message })) };
  return { log: log as unknown as FastifyBaseLogger, lines };
}

const config = (database: string, redisUrl?: string) =>
  ({ database, redisUrl, redisPrefix: 'meal-export:' }) as unknown as ServeConfig;

test('serve logs which store and which limiter it uses at start, never a password', () => {
  const { log, lines } = recordingLog();
  logStoreAndLimiter(log, config('postgres://meal:s3cret@db.internal:5432/meals'));
  logStoreAndLimiter(log, config('postgres://meal:s3cret@db.internal/meals', 'redis://:r3dis-pass@cache:6379/0'));
  logStoreAndLimiter(log, config('data/meal-export.db'), 'primary');
  assert.equal(lines.length, 3);
  for (const line of lines) assert.doesNotMatch(line, /s3cret|r3dis-pass/);
  assert.match(lines[0] ?? '', /store postgres:\/\/meal:\*\*\*@db\.internal:5432\/meals, limiter in-process/);
  assert.match(lines[1] ?? '', /limiter redis redis:\/\/:\*\*\*@cache:6379\/0 \(keys under meal-export:\)/);
  assert.ok((lines[2] ?? '').includes(`store ${process.cwd()}/data/meal-export.db`), lines[2]);
  assert.match(lines[2] ?? '', /limiter in-process, the cluster primary's/);
});

test('the origin login links point at: --public-url, else the page as bound, a wildcard host made loopback', () => {
  assert.equal(appPageOrigin('https://127.0.0.1:40001', undefined), 'https://127.0.0.1:40001');
  assert.equal(appPageOrigin('https://0.0.0.0:40001', undefined), 'https://127.0.0.1:40001');
  assert.equal(appPageOrigin('http://[::]:40001', undefined), 'http://[::1]:40001');
  assert.equal(appPageOrigin('https://0.0.0.0:40001', 'https://meals.example.com'), 'https://meals.example.com');
});
