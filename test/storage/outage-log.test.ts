import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { AppError } from '../../src/errors.js';
import { createOutageLog, QUIET_OUTAGE_MS } from '../../src/storage/outage-log.js';
import { storageUnavailable } from '../../src/storage/unavailable.js';

/** A real pino logger at debug level writing its lines into an array. */
function capturedLog(): { log: pino.Logger; lines: () => Array<Record<string, unknown>> } {
  const written: string[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => written.push(line) });
  return { log, lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

const busy = () => storageUnavailable(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }), 'busy');

test('a busy store is retried quietly; a warning once it lasts 30 s, with how long and no stack; a line when it answers again', () => {
  const { log, lines } = capturedLog();
  let clock = 0;
  const outage = createOutageLog(log, 'webhooks: the outbox', () => clock);
  for (clock = 0; clock < QUIET_OUTAGE_MS; clock += 5_000) outage.failed(busy(), 5_000);
  assert.deepEqual(
    lines().map((line) => line.level),
    Array(6).fill(20),
    'debug lines only while it is short',
  );
  for (; clock <= QUIET_OUTAGE_MS + 60_000; clock += 5_000) outage.failed(busy(), 5_000);
  const warnings = lines().filter((line) => line.level === 40);
  assert.equal(warnings.length, 1, 'one warning, however long it lasts');
  assert.equal(warnings[0]?.msg, 'webhooks: the outbox: the store has not answered for 30 s; still trying every 5 s');
  assert.equal(warnings[0]?.code, 'SQLITE_BUSY');
  assert.equal(warnings[0]?.err, undefined, 'no stack trace');
  outage.succeeded();
  assert.deepEqual(lines().at(-1)?.msg, 'webhooks: the outbox: the store answers again');
  // A new outage starts quiet again.
  outage.failed(busy(), 5_000);
  assert.equal(lines().at(-1)?.level, 20);
});

test('any other failure is a bug: warned at once, with its stack', () => {
  const { log, lines } = capturedLog();
  const outage = createOutageLog(log, 'webhooks: the outbox', () => 0);
  outage.failed(new TypeError('x is not a function'), 5_000);
  outage.failed(new AppError('bad_request', 'not an outage'), 5_000);
  const [first, second] = lines();
  assert.equal(first?.level, 40);
  assert.match(String((first?.err as { stack?: string } | undefined)?.stack), /TypeError: x is not a function/);
  assert.equal(second?.level, 40);
});
