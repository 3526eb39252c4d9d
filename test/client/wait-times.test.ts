import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPacer } from '../../src/client/pacer.js';
import type { WaitEvent } from '../../src/client/types.js';
import { backoffDelay, intervalFromPolicy, parseRetryAfter } from '../../src/client/wait-times.js';

test('Retry-After is read as seconds or as an HTTP-date', () => {
  assert.equal(parseRetryAfter('3'), 3000);
  assert.equal(parseRetryAfter(undefined), undefined);
  assert.equal(parseRetryAfter('soon'), undefined);
  const now = Date.parse('2025-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now), 10_000);
});

test("the interval is read from the server's RateLimit-Policy, none when it has no interval item", () => {
  assert.equal(intervalFromPolicy('"daily";q=1000;w=86400, "interval";q=1;w=3'), 3000);
  assert.equal(intervalFromPolicy('"daily";q=1000;w=86400'), 0);
  assert.equal(intervalFromPolicy(undefined), undefined);
});

test('backoff is full jitter under a cap that doubles per retry up to the maximum', () => {
  const options = { initialMs: 100, maxMs: 1000 };
  assert.equal(
    backoffDelay(1, options, () => 0.999),
    99,
  );
  assert.equal(
    backoffDelay(3, options, () => 0.999),
    399,
  );
  assert.equal(
    backoffDelay(10, options, () => 0.999),
    999,
  );
  assert.equal(
    backoffDelay(10, options, () => 0),
    0,
  );
});

test('the pacer waits 3 s by default, then the interval the server announces; a fixed one is kept', async () => {
  let now = 0;
  const waits: WaitEvent[] = [];
  const wait = async (event: WaitEvent) => {
    if (event.ms > 0) waits.push(event);
  };
  const pacer = createPacer({ wait, now: () => now });
  await pacer.ready(undefined);
  assert.deepEqual(waits, [], 'the first request goes at once');
  pacer.noteAccepted({});
  now = 1000;
  await pacer.ready(undefined);
  assert.deepEqual(waits.pop(), { reason: 'interval', ms: 2000 });
  pacer.noteAccepted({ 'ratelimit-policy': '"daily";q=1000;w=86400' });
  await pacer.ready(undefined);
  assert.deepEqual(waits, [], 'a server with no interval announces none');

  const fixed = createPacer({ wait, now: () => now, minIntervalMs: 500 });
  fixed.noteAccepted({ 'ratelimit-policy': '"daily";q=1000;w=86400' });
  await fixed.ready(undefined);
  assert.deepEqual(waits.pop(), { reason: 'interval', ms: 500 });
});

test('after a long poll the interval counts from shortly after it was sent, not from its answer', async () => {
  let now = 0;
  const waits: WaitEvent[] = [];
  const wait = async (event: WaitEvent) => {
    if (event.ms > 0) waits.push(event);
  };
  const pacer = createPacer({ wait, now: () => now });
  // Held 5 s: accepted on arrival, so the next request goes at once.
  const sentAt = await pacer.ready(undefined);
  now = 5000;
  pacer.noteAccepted({}, sentAt);
  assert.equal(await pacer.ready(undefined), 5000);
  assert.deepEqual(waits, []);
  // Held 2 s: 3 s from the latest it can have been accepted (1 s after it was sent).
  now = 7000;
  pacer.noteAccepted({}, 5000);
  await pacer.ready(undefined);
  assert.deepEqual(waits.pop(), { reason: 'interval', ms: 2000 });
  // Answered at once: as any request, 3 s from its answer.
  now = 7100;
  pacer.noteAccepted({}, 7000);
  await pacer.ready(undefined);
  assert.deepEqual(waits.pop(), { reason: 'interval', ms: 3000 });
});
