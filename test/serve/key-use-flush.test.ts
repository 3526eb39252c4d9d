import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import type { KeyAuthenticator } from '../../src/keys/key-authenticator.js';
import { startKeyUseFlush } from '../../src/serve/key-use-flush.js';

/** An authenticator whose flushUses is scripted: each call takes `takesMs`, and fails while `failing()` says so. */
function scriptedFlushes(options: { takesMs?: number; failing?: (call: number) => boolean }) {
  const record = { calls: 0, running: 0, mostAtOnce: 0, written: 0 };
  const authenticator: KeyAuthenticator = {
    authenticate: () => Promise.resolve(undefined),
    noteUse: () => {},
    async flushUses() {
      record.calls += 1;
      const call = record.calls;
      record.running += 1;
      record.mostAtOnce = Math.max(record.mostAtOnce, record.running);
      try {
        await sleep(options.takesMs ?? 0);
        if (options.failing?.(call) === true) throw new Error(`store busy (call ${call})`);
        record.written += 1;
      } finally {
        record.running -= 1;
      }
    },
  };
  return { authenticator, record };
}

function recordingLog() {
  const lines: { level: number; msg: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}

/** The counts survive a restart, exactly after a graceful stop (docs/operations.md#limits-across-restarts). */
describe('the flush of key uses: every 5 s, and once more on close', () => {
  test('writes every interval while serving', async () => {
    const { authenticator, record } = scriptedFlushes({});
    const flush = startKeyUseFlush(authenticator, recordingLog().log, { everyMs: 20 });
    await sleep(110);
    assert.ok(record.written >= 3, `flushed ${record.written} times in 110 ms`);
    await flush.stop();
  });

  test('the last flush on close is tried again while the store refuses it, until it is written', async () => {
    const { authenticator, record } = scriptedFlushes({ failing: (call) => call <= 3 });
    const { log, lines } = recordingLog();
    const flush = startKeyUseFlush(authenticator, log, { everyMs: 60_000 });
    await flush.stop();
    assert.equal(record.calls, 4);
    assert.equal(record.written, 1);
    assert.equal(lines.filter((line) => line.level >= 50).length, 0, 'nothing lost, nothing logged as lost');
  });

  test('a flush in flight when close begins is waited for: the last one never runs beside it', async () => {
    const { authenticator, record } = scriptedFlushes({ takesMs: 80 });
    const flush = startKeyUseFlush(authenticator, recordingLog().log, { everyMs: 20 });
    await sleep(40);
    await flush.stop();
    assert.equal(record.mostAtOnce, 1);
    assert.equal(record.running, 0, 'nothing is still being written once stop resolves');
  });

  test('gives up after lastFlushForMs while the store keeps refusing, and says what is lost', async () => {
    const { authenticator } = scriptedFlushes({ failing: () => true });
    const { log, lines } = recordingLog();
    const flush = startKeyUseFlush(authenticator, log, { everyMs: 60_000, lastFlushForMs: 300 });
    const started = performance.now();
    await flush.stop();
    const took = performance.now() - started;
    assert.ok(took >= 300 && took < 2_000, `gave up after ${Math.round(took)} ms`);
    assert.match(lines.find((line) => line.level === 50)?.msg ?? '', /could not record key use on close/);
  });
});
