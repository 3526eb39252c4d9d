import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PROC_SKIP } from '../support/process-probes.js';
import { type SignalledServe, type SignalMoment, signalServeAt } from '../support/serve-signals.js';

// SIGTERM or SIGINT while `serve` starts, or right after its `listening on` line,
// drains and exits 0 (docs/cli.md#serve); it never kills the process by Node's default
// action. (Only once the command runs: while Node boots and loads its modules, a signal ends
// any process.) Each case runs several processes at once: a busy machine is when the race
// was lost.

const LISTENING_LINE: SignalMoment = { text: 'listening on ', held: false };
const HELD_AFTER_LISTENING_LINE: SignalMoment = { text: 'listening on ', held: true };
// The first log line: storage is open, the port not yet bound (the primary: no worker yet).
const HELD_AFTER_FIRST_LOG_LINE: SignalMoment = { text: '"msg":"TLS certificate"', held: true };
// The primary has forked a worker, which is still loading: it cannot hear a drain yet.
const WORKER_FORKED: SignalMoment = { text: '"msg":"worker started"', held: false };

function runs(count: number, run: () => Promise<SignalledServe>): Promise<SignalledServe[]> {
  return Promise.all(Array.from({ length: count }, run));
}

/** Exit 0 by itself with its drain logged, and the `listening on` line only when it was ready. */
function assertDrained(result: SignalledServe, listeningLine: boolean | 'either'): void {
  const logs = result.stderr.slice(-3000);
  assert.equal(result.signal, null, `not ended by ${result.signal}; logs:\n${logs}`);
  assert.equal(result.code, 0, `exit code 0; logs:\n${logs}`);
  assert.match(result.stderr, /"msg":"shutting down: /);
  if (listeningLine !== 'either') assert.equal(/^listening on /.test(result.stdout), listeningLine, result.stdout);
}

describe('serve, signalled while it starts', { skip: PROC_SKIP ?? false, timeout: 120_000 }, () => {
  test('held right after its listening line, then SIGTERM (or SIGINT): it drains and exits 0', async () => {
    const terms = runs(3, () => signalServeAt(HELD_AFTER_LISTENING_LINE));
    const int = signalServeAt(HELD_AFTER_LISTENING_LINE, { signal: 'SIGINT' });
    for (const result of [...(await terms), await int]) assertDrained(result, true);
  });

  test('SIGTERM the instant its listening line arrives: it drains and exits 0, every time', async () => {
    for (const result of await runs(6, () => signalServeAt(LISTENING_LINE))) assertDrained(result, true);
  });

  test('SIGTERM before it listens: it finishes starting, prints no listening line, and exits 0', async () => {
    for (const result of await runs(3, () => signalServeAt(HELD_AFTER_FIRST_LOG_LINE))) assertDrained(result, false);
  });
});

describe('serve --workers 2, signalled while it starts', { skip: PROC_SKIP ?? false, timeout: 120_000 }, () => {
  const workers = 2;

  test('held right after its listening line, then SIGTERM: every worker drains and it exits 0', async () => {
    for (const result of await runs(2, () => signalServeAt(HELD_AFTER_LISTENING_LINE, { workers }))) {
      assertDrained(result, true);
      assert.equal(result.stderr.match(/"msg":"worker draining: /g)?.length, workers, result.stderr.slice(-3000));
    }
  });

  test('SIGTERM the instant its listening line arrives: it exits 0, every time', async () => {
    for (const result of await runs(2, () => signalServeAt(LISTENING_LINE, { workers }))) assertDrained(result, true);
  });

  test('SIGTERM before any worker starts: the fleet starts, drains, and it exits 0 without a listening line', async () => {
    assertDrained(await signalServeAt(HELD_AFTER_FIRST_LOG_LINE, { workers }), false);
  });

  test('SIGTERM as soon as a worker is forked, before it can hear a drain: every worker drains, exit 0', async () => {
    for (const result of await runs(2, () => signalServeAt(WORKER_FORKED, { workers }))) {
      assertDrained(result, 'either');
      assert.equal(result.stderr.match(/"msg":"worker draining: /g)?.length, workers, result.stderr.slice(-3000));
    }
  });
});
