import assert from 'node:assert/strict';
import { test } from 'node:test';
import { webhookAttemptFate } from '../../src/domain/webhook-retry.js';

const NOW = Date.UTC(2026, 10, 23, 10);
const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
/** An event at its `attemptsBefore`th step, of an endpoint that never delivered. */
const step = (attemptsBefore: number) => ({
  attempts: attemptsBefore,
  stepDueAt: undefined,
  lastDeliveredAt: undefined,
});

test('a 2xx delivers, whatever the attempt', () => {
  for (const status of [200, 201, 202, 204, 299]) {
    assert.deepEqual(webhookAttemptFate(step(0), status, NOW), { kind: 'delivered' });
    assert.deepEqual(webhookAttemptFate(step(7), status, NOW), { kind: 'delivered' });
  }
});

test('a 410 Gone disables the endpoint at once', () => {
  assert.deepEqual(webhookAttemptFate(step(0), 410, NOW), { kind: 'disable' });
});

test('anything else is retried 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after the previous attempt, then the endpoint is disabled', () => {
  const schedule = [5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H];
  for (const status of [null, 500, 302, 404, 429, 199]) {
    schedule.forEach((delay, attemptsBefore) => {
      // random() = 0.5: no jitter.
      assert.deepEqual(
        webhookAttemptFate(step(attemptsBefore), status, NOW, () => 0.5),
        { kind: 'retry', at: NOW + delay, stepAt: NOW + delay, counted: true },
      );
    });
    assert.deepEqual(
      webhookAttemptFate(step(schedule.length), status, NOW, () => 0.5),
      { kind: 'disable' },
    );
  }
});

test('each delay varies by ± 10 %, never more', () => {
  const at = (random: number, attemptsBefore: number) => {
    const fate = webhookAttemptFate(step(attemptsBefore), 500, NOW, () => random);
    assert.equal(fate.kind, 'retry');
    return fate.kind === 'retry' ? fate.at - NOW : 0;
  };
  assert.equal(at(0, 0), 4_500);
  assert.equal(at(0.999999, 0), 5_500);
  assert.equal(at(0, 6), 9 * H);
  assert.ok(at(0.999999, 6) <= 11 * H);
});

test('while the endpoint delivered within the hour, a failed event is tried again within 30 s, tries that do not count as steps', () => {
  const upAt = NOW - 10 * MIN;
  // The first failure is a step: the schedule's next step 5 min away, a try in 30 s before it.
  const second = webhookAttemptFate({ attempts: 1, stepDueAt: undefined, lastDeliveredAt: upAt }, 500, NOW, () => 0.5);
  assert.deepEqual(second, { kind: 'retry', at: NOW + 30 * S, stepAt: NOW + 5 * MIN, counted: true });
  // A try before the step keeps the step where it was and counts nothing.
  const extra = webhookAttemptFate({ attempts: 2, stepDueAt: NOW + 5 * MIN, lastDeliveredAt: upAt }, 500, NOW + 30 * S);
  assert.deepEqual(extra, { kind: 'retry', at: NOW + 60 * S, stepAt: NOW + 5 * MIN, counted: false });
  // Never past the step: the last try before it waits only until it.
  const last = webhookAttemptFate(
    { attempts: 2, stepDueAt: NOW + 5 * MIN, lastDeliveredAt: upAt },
    null,
    NOW + 4 * MIN + 50 * S,
  );
  assert.deepEqual(last, { kind: 'retry', at: NOW + 5 * MIN, stepAt: NOW + 5 * MIN, counted: false });
  // The step itself counts; and a 5 s first step stays 5 s.
  const atStep = webhookAttemptFate({ attempts: 2, stepDueAt: NOW, lastDeliveredAt: upAt }, 500, NOW, () => 0.5);
  assert.deepEqual(atStep, { kind: 'retry', at: NOW + 30 * S, stepAt: NOW + 30 * MIN, counted: true });
  const first = webhookAttemptFate({ attempts: 0, stepDueAt: undefined, lastDeliveredAt: upAt }, 500, NOW, () => 0.5);
  assert.deepEqual(first, { kind: 'retry', at: NOW + 5 * S, stepAt: NOW + 5 * S, counted: true });
});

test('an endpoint with no delivery for an hour follows the schedule alone, and is disabled after its last step as before', () => {
  const downSince = NOW - H;
  const fate = webhookAttemptFate(
    { attempts: 1, stepDueAt: undefined, lastDeliveredAt: downSince },
    500,
    NOW,
    () => 0.5,
  );
  assert.deepEqual(fate, { kind: 'retry', at: NOW + 5 * MIN, stepAt: NOW + 5 * MIN, counted: true });
  const lastStep = webhookAttemptFate({ attempts: 7, stepDueAt: NOW, lastDeliveredAt: NOW - 10 * MIN }, 500, NOW);
  assert.deepEqual(lastStep, { kind: 'disable' }, 'extra tries never keep an endpoint past its schedule');
  const extraBeforeLast = webhookAttemptFate(
    { attempts: 7, stepDueAt: NOW + H, lastDeliveredAt: NOW - 10 * MIN },
    500,
    NOW,
  );
  assert.equal(extraBeforeLast.kind, 'retry', 'an extra try before the last step does not disable');
});
