import assert from 'node:assert/strict';
import path from 'node:path';
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
