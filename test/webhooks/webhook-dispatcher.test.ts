import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { registerWebhook } from '../../src/webhooks/webhook-endpoints.js';
import { WEBHOOK_RETRY_DELAYS_MS } from '../../src/domain/webhook-retry.js';
import { createLogger } from '../../src/logger.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { createWebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';
import { createWebhookSender } from '../../src/webhooks/webhook-sender.js';
import { plainMeal } from '../support/contract.js';
import { makeTempDir } from '../support/project.js';
import { makeCertificate, startReceiver } from './receiver.js';

/**
 * The whole retry schedule on the dispatcher's injected clock (docs/webhooks.md#the-call): a
 * receiver that always answers 500 gets the first attempt and seven retries, each due its
 * delay ± 10 % after the previous one, with the same webhook-id; after the last, the endpoint
 * is disabled. Real store, real sender, real HTTPS receiver: only the clock is the test's.
 */
test('a failing endpoint is retried 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after each attempt, then disabled', async () => {
  const temp = makeTempDir('dispatcher');
  const certificate = await makeCertificate();
  const receiver = await startReceiver(certificate, (response) => response.writeHead(500).end());
  const storage = await openStorage(path.join(temp.dir, 'store.db'), { serving: true });
  const sender = createWebhookSender({ allowPrivate: true, ca: certificate.cert, userAgent: 'test' });
  let now = Date.UTC(2026, 10, 23, 10);
  const dispatcher = createWebhookDispatcher({
    webhooks: storage.webhooks,
    signals: storage.signals,
    send: (call) => sender.send(call),
    log: createLogger('silent'),
    now: () => now,
  });
  try {
    const registered = await registerWebhook(storage.webhooks, { userId: 'u1', url: receiver.url, name: '' }, now);
    assert.ok(registered.ok);
    await storage.writes.upsertMeals('u1', [plainMeal('a')], now);
    for (let attempt = 1; attempt <= WEBHOOK_RETRY_DELAYS_MS.length + 1; attempt += 1) {
      dispatcher.wake();
      const deadline = performance.now() + 5_000;
      while ((await storage.webhooks.listWebhookAttempts(registered.endpoint.id)).length < attempt) {
        assert.ok(performance.now() < deadline, `attempt ${attempt} made`);
        await sleep(20);
      }
      assert.equal(receiver.calls.length, attempt);
      const due = await storage.webhooks.nextWebhookDueAt();
      if (attempt <= WEBHOOK_RETRY_DELAYS_MS.length) {
        assert.ok(due !== undefined, `a retry after attempt ${attempt}`);
        const delay = WEBHOOK_RETRY_DELAYS_MS[attempt - 1] ?? 0;
        assert.ok(
          due - now >= delay * 0.9 && due - now <= delay * 1.1,
          `retry ${attempt} due ${due - now} ms after the attempt (schedule: ${delay} ± 10 %)`,
        );
        now = due;
      }
    }
    const [endpoint] = await storage.webhooks.listWebhooks('u1');
    assert.equal(endpoint?.status, 'disabled', 'disabled after the last attempt');
    assert.equal(new Set(receiver.calls.map((call) => call.headers['webhook-id'])).size, 1, 'one webhook-id');
    dispatcher.wake();
    await sleep(300);
    assert.equal(receiver.calls.length, WEBHOOK_RETRY_DELAYS_MS.length + 1, 'a disabled endpoint is not called');
  } finally {
    await dispatcher.stop();
    sender.close();
    await storage.close();
    await receiver.close();
    temp.remove();
  }
});

/** A dispatcher on a real store, sender and receiver, with the test's clock. */
async function dispatcherRig(answer: Parameters<typeof startReceiver>[1]) {
  const temp = makeTempDir('dispatcher');
  const certificate = await makeCertificate();
  const receiver = await startReceiver(certificate, answer);
  const storage = await openStorage(path.join(temp.dir, 'store.db'), { serving: true });
  const sender = createWebhookSender({ allowPrivate: true, ca: certificate.cert, userAgent: 'test' });
  const clock = { now: Date.UTC(2026, 10, 23, 10) };
  const dispatcher = createWebhookDispatcher({
    webhooks: storage.webhooks,
    signals: storage.signals,
    send: (call) => sender.send(call),
    log: createLogger('silent'),
    now: () => clock.now,
    random: () => 0.5,
  });
  const registered = await registerWebhook(storage.webhooks, { userId: 'u1', url: receiver.url, name: '' }, clock.now);
  if (!registered.ok) throw new Error('the endpoint was not registered');
  const endpointId = registered.endpoint.id;
  return {
    clock,
    storage,
    receiver,
    /** Wakes the dispatcher, waits for its call and its record; the next due time after it. */
    async attempt(): Promise<number | undefined> {
      const before = receiver.calls.length;
      dispatcher.wake();
      const deadline = performance.now() + 5_000;
      for (;;) {
        const recorded = await storage.webhooks.listWebhookAttempts(endpointId);
        const done = receiver.calls.length > before && recorded.length >= Math.min(50, receiver.calls.length);
        if (done && recorded[0]?.at === clock.now) return storage.webhooks.nextWebhookDueAt();
        assert.ok(performance.now() < deadline, `attempt ${before + 1} made and recorded`);
        await sleep(5);
      }
    },
    async close() {
      await dispatcher.stop();
      sender.close();
      await storage.close();
      await receiver.close();
      temp.remove();
    },
  };
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

test('a receiver that delivered within the hour is tried every 30 s between the steps, tries that do not count; after an hour without a delivery, the schedule alone', async () => {
  let answered = 0;
  const rig = await dispatcherRig((response) => response.writeHead(answered++ === 0 ? 200 : 500).end());
  try {
    await rig.storage.writes.upsertMeals('u1', [plainMeal('a')], rig.clock.now);
    assert.equal(await rig.attempt(), undefined, 'delivered: nothing due');
    const deliveredAt = rig.clock.now;
    await rig.storage.writes.upsertMeals('u1', [plainMeal('b')], rig.clock.now);
    const gaps: number[] = [];
    while (gaps.filter((gap) => gap > 30_000).length < 2) {
      const due = await rig.attempt();
      assert.ok(due !== undefined, 'the event is tried again');
      const gap = due - rig.clock.now;
      if (rig.clock.now - deliveredAt < HOUR) assert.ok(gap <= 30_000, `${gap} ms to the next try, within the hour`);
      gaps.push(gap);
      rig.clock.now = due;
    }
    // The steps 5 s, 5 min and 30 min were taken within the hour, between tries every 30 s;
    // then the 2 h step (due 2 h after the 30 min one, at 2 h 35 min 5 s) and the 5 h one.
    assert.equal(gaps[0], 5_000, 'the first step is 5 s');
    assert.ok(gaps.length > 100, `${gaps.length} tries`);
    assert.equal(gaps.at(-1), 5 * HOUR, 'the step after the 2 h one: four steps counted, the tries none');
    assert.equal(
      rig.clock.now - 5 * HOUR,
      deliveredAt + 2 * HOUR + 35 * MINUTE + 5_000,
      'the 2 h step where the schedule put it',
    );
    const [endpoint] = await rig.storage.webhooks.listWebhooks('u1');
    assert.equal(endpoint?.status, 'enabled', 'the tries did not use up the schedule');
  } finally {
    await rig.close();
  }
});

test('a receiver refusing one call in seven, twice in a row at worst, hears of each change within 35 s', async () => {
  // Refused: the 2nd, 9th and 10th, 17th ... calls: one in seven, and one pair.
  const refused = new Set([2, 9, 10, 17, 24, 31]);
  let call = 0;
  const rig = await dispatcherRig((response) => response.writeHead(refused.has(++call) ? 503 : 204).end());
  try {
    const lateness: number[] = [];
    for (let change = 0; change < 25; change += 1) {
      const madeAt = rig.clock.now;
      await rig.storage.writes.upsertMeals('u1', [plainMeal(`m${change}`)], madeAt);
      for (let due = await rig.attempt(); due !== undefined; due = await rig.attempt()) rig.clock.now = due;
      lateness.push(rig.clock.now - madeAt);
      rig.clock.now += 7 * MINUTE;
    }
    assert.ok(Math.max(...lateness) <= 35_000, `heard of each change after at most 35 s: ${lateness.join(', ')} ms`);
    assert.ok(lateness.filter((ms) => ms > 0).length >= 4, 'some were refused first');
  } finally {
    await rig.close();
  }
});

/**
 * A serving process's claim does not wait for another process's write lock (it would block the
 * event loop): it fails at once. A lock held for a moment, released without a commit (so no
 * change signal follows), must not hold the due call back for the 5 s an outage waits.
 */
test('a claim that met another connection’s write lock is tried again within a second of its release', async () => {
  const temp = makeTempDir('dispatcher');
  const certificate = await makeCertificate();
  const receiver = await startReceiver(certificate, (response) => response.writeHead(200).end());
  const file = path.join(temp.dir, 'store.db');
  const storage = await openStorage(file, { serving: true });
  const sender = createWebhookSender({ allowPrivate: true, ca: certificate.cert, userAgent: 'test' });
  const other = new Database(file);
  let dispatcher: ReturnType<typeof createWebhookDispatcher> | undefined;
  try {
    const now = Date.now();
    assert.ok((await registerWebhook(storage.webhooks, { userId: 'u1', url: receiver.url, name: '' }, now)).ok);
    await storage.writes.upsertMeals('u1', [plainMeal('a')], now);
    other.exec('BEGIN IMMEDIATE');
    dispatcher = createWebhookDispatcher({
      webhooks: storage.webhooks,
      signals: storage.signals,
      send: (call) => sender.send(call),
      log: createLogger('silent'),
    });
    dispatcher.wake();
    await sleep(300);
    assert.equal(receiver.calls.length, 0, 'no call while the lock is held');
    other.exec('ROLLBACK');
    const released = performance.now();
    while (receiver.calls.length === 0) {
      assert.ok(performance.now() - released < 1_000, 'the call made within a second of the release');
      await sleep(20);
    }
  } finally {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await dispatcher?.stop();
    sender.close();
    await storage.close();
    await receiver.close();
    temp.remove();
  }
});
