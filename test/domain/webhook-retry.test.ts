import assert from 'node:assert/strict';
import { test } from 'node:test';
import { webhookAttemptFate } from '../../src/domain/webhook-retry.js';

const NOW = Date.UTC(2026, 10, 23, 10);
const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

test('a 2xx delivers, whatever the attempt', () => {
  for (const status of [200, 201, 202, 204, 299]) {
    assert.deepEqual(webhookAttemptFate(0, status, NOW), { kind: 'delivered' });
    assert.deepEqual(webhookAttemptFate(7, status, NOW), { kind: 'delivered' });
  }
});

test('a 410 Gone disables the endpoint at once', () => {
  assert.deepEqual(webhookAttemptFate(0, 410, NOW), { kind: 'disable' });
});

test('anything else is retried 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after the previous attempt, then the endpoint is disabled', () => {
  const schedule = [5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H];
  for (const status of [null, 500, 302, 404, 429, 199]) {
    schedule.forEach((delay, attemptsBefore) => {
      // random() = 0.5: no jitter.
      assert.deepEqual(
        webhookAttemptFate(attemptsBefore, status, NOW, () => 0.5),
        { kind: 'retry', at: NOW + delay },
      );
    });
    assert.deepEqual(
      webhookAttemptFate(schedule.length, status, NOW, () => 0.5),
      { kind: 'disable' },
    );
  }
});

test('each delay varies by ± 10 %, never more', () => {
  const at = (random: number, attemptsBefore: number) => {
    const fate = webhookAttemptFate(attemptsBefore, 500, NOW, () => random);
    assert.equal(fate.kind, 'retry');
    return fate.kind === 'retry' ? fate.at - NOW : 0;
  };
  assert.equal(at(0, 0), 4_500);
  assert.equal(at(0.999999, 0), 5_500);
  assert.equal(at(0, 6), 9 * H);
  assert.ok(at(0.999999, 6) <= 11 * H);
});
