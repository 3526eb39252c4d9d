import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type MealHost, MealHostError, openMealHost } from '../../src/host/index.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { makeTempDir } from '../support/project.js';

const hostError = (code: string) => (error: unknown) => error instanceof MealHostError && error.code === code;

/** meal-export/host's webhook calls, as the diet app's back end (or the app page) would make them. */
describe('the host module: webhooks', () => {
  const temp = makeTempDir('host-webhooks');
  const db = path.join(temp.dir, 'store.db');
  let host: MealHost;

  before(async () => {
    host = await openMealHost(db);
  });

  after(async () => {
    await host?.close();
    temp.remove();
  });

  test('creates an endpoint with its secret once; lists it without; refuses bad URLs and a 6th', async () => {
    const created = await host.createWebhook('u_1', 'https://hooks.example.com/a', { name: 'shop' });
    assert.deepEqual(Object.keys(created), ['id', 'url', 'name', 'secret', 'createdAt']);
    assert.match(created.secret, /^whsec_/);
    const listed = await host.listWebhooks('u_1');
    assert.deepEqual(listed, [
      {
        id: created.id,
        url: 'https://hooks.example.com/a',
        name: 'shop',
        status: 'enabled',
        createdAt: created.createdAt,
        lastAttemptAt: null,
        lastStatus: null,
      },
    ]);
    assert.ok(!JSON.stringify(listed).includes('whsec_'));

    await assert.rejects(host.createWebhook('u_1', 'http://hooks.example.com/'), hostError('invalid_webhook_url'));
    await assert.rejects(host.createWebhook('u_1', 'https://a:b@hooks.example.com/'), hostError('invalid_webhook_url'));
    await assert.rejects(
      host.createWebhook('u_1', 'https://169.254.169.254/latest/meta-data'),
      (error: unknown) => hostError('invalid_webhook_url')(error) && /link-local/.test(String(error)),
    );
    await assert.rejects(
      host.createWebhook('u_1', 'https://hooks.example.com/', { name: 'x'.repeat(101) }),
      hostError('invalid_argument'),
    );
    await assert.rejects(host.createWebhook('', 'https://hooks.example.com/'), hostError('invalid_user_id'));
    for (let i = 0; i < 4; i += 1) await host.createWebhook('u_1', `https://hooks.example.com/${i}`);
    await assert.rejects(host.createWebhook('u_1', 'https://hooks.example.com/6'), hostError('too_many_webhooks'));
    assert.equal((await host.listWebhooks('u_1')).length, 5);
  });

  test("acts only on the user's own endpoints: another user's id is as unknown as a made-up one", async () => {
    const own = await host.createWebhook('u_2', 'https://hooks.example.com/own');
    for (const id of [own.id, 'wh_unknown']) {
      assert.equal(await host.deleteWebhook('u_3', id), false);
      assert.equal(await host.enableWebhook('u_3', id), false);
      assert.equal(await host.rotateWebhookSecret('u_3', id), undefined);
      assert.equal(await host.testWebhook('u_3', id), undefined);
      assert.deepEqual(await host.listWebhookAttempts('u_3', id), []);
    }
    assert.equal((await host.listWebhooks('u_2')).length, 1);

    const rotated = await host.rotateWebhookSecret('u_2', own.id);
    assert.equal(rotated?.id, own.id);
    assert.match(rotated?.secret ?? '', /^whsec_/);
    assert.notEqual(rotated?.secret, own.secret);
    const queued = await host.testWebhook('u_2', own.id);
    assert.match(queued?.eventId ?? '', /^msg_[0-9a-f]{32}$/);
    assert.equal(await host.enableWebhook('u_2', own.id), true);

    // An attempt, as the sender records it, shows in listWebhookAttempts.
    const storage = await openStorage(db);
    try {
      const [event] = (await storage.webhooks.claimDueWebhookEvents(Date.now() + 1000, 60_000, 10)).filter(
        (e) => e.endpointId === own.id,
      );
      assert.equal(event?.eventId, queued?.eventId);
      if (event !== undefined) {
        const attempt = {
          endpointId: own.id,
          eventId: event.eventId,
          at: 1_767_225_600_000,
          status: 204,
          error: null,
          ms: 31,
        };
        await storage.webhooks.recordWebhookAttempt(event, attempt, { kind: 'delivered' });
      }
    } finally {
      await storage.close();
    }
    assert.deepEqual(await host.listWebhookAttempts('u_2', own.id), [
      { at: '2026-01-01T00:00:00.000Z', eventId: queued?.eventId, status: 204, error: null, ms: 31 },
    ]);
    assert.equal((await host.listWebhooks('u_2'))[0]?.lastStatus, 204);

    assert.equal(await host.deleteWebhook('u_2', own.id), true);
    assert.deepEqual(await host.listWebhooks('u_2'), []);
  });

  test('meals the back end records queue a call to each endpoint of the user', async () => {
    const endpoint = await host.createWebhook('u_4', 'https://hooks.example.com/meals');
    await host.upsertMeals('u_4', [{ id: 'hw1', title: 'Soup', type: 'lunch', date: '2025-03-01T12:00:00Z' }]);
    await host.deleteMeal('u_4', 'hw1');
    const storage = await openStorage(db);
    try {
      const events = (await storage.webhooks.claimDueWebhookEvents(Date.now() + 1000, 60_000, 10)).filter(
        (e) => e.endpointId === endpoint.id,
      );
      assert.equal(events.length, 1);
      assert.equal(events[0]?.type, 'meals.changed');
      assert.ok((events[0]?.from ?? 0) < (events[0]?.through ?? 0), 'the upsert and the delete, in one event');
    } finally {
      await storage.close();
    }
  });
});
