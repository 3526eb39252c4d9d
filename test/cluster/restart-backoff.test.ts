import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextQuickExits, RESTART_BACKOFF, restartDelayMs } from '../../src/cluster/restart-backoff.js';

test('a worker that crashes soon after each start waits twice as long each time, up to 30 s', () => {
  let quickExits = 0;
  const delays: number[] = [];
  for (let i = 0; i < 12; i += 1) {
    quickExits = nextQuickExits(quickExits, 500);
    delays.push(restartDelayMs(quickExits));
  }
  assert.deepEqual(delays.slice(0, 5), [100, 200, 400, 800, 1600]);
  assert.equal(delays.at(-1), RESTART_BACKOFF.maxDelayMs);
  assert.ok(delays.every((d) => d <= 30_000));
});

test('a worker that had run for a while restarts after the first delay again', () => {
  assert.equal(nextQuickExits(9, RESTART_BACKOFF.stableAfterMs), 1);
  assert.equal(restartDelayMs(nextQuickExits(9, 3_600_000)), RESTART_BACKOFF.firstDelayMs);
});
