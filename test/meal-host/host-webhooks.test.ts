import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openStorage } from '../../src/storage/open-storage.js';
import { hostRefusal, useTempMealHost } from '../support/temp-meal-host.js';

/** meal-export/host's webhook calls, as the diet app's back end (or the app page) would make them. */
describe('the host module: webhooks', () => {
  const store = useTempMealHost('host-webhooks');

  test('creates an endpoint with its secret once; lists it without; refuses bad URLs and a 6th', async () => {
    const created = await store.host.createWebhook('u_1', 'https://hooks.example.com/a', { name: 'shop' });
    assert.deepEqual(Object.keys(created), ['id', 'url', 'name', 'secret', 'createdAt']);
    assert.match(created.secret, /^whsec_/);
    const listed = await store.host.listWebhooks('u_1');
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

    await assert.rejects(
      store.host.createWebhook('u_1', 'http://hooks.example.com/'),
      hostRefusal('invalid_webhook_url'),
    );
    await assert.rejects(
      store.host.createWebhook('u_1', 'https://a:b@hooks.example.com/'),
      hostRefusal('invalid_webhook_url'),
    );
    await assert.rejects(
      store.host.createWebhook('u_1', 'https://169.254.169.254/latest/meta-data'),
      hostRefusal('invalid_webhook_url', /link-local/),
    );
    await assert.rejects(
      store.host.createWebhook('u_1', 'https://hooks.example.com/', { name: 'x'.repeat(101) }),
      hostRefusal('invalid_argument'),
    );
    await assert.rejects(store.host.createWebhook('', 'https://hooks.example.com/'), hostRefusal('invalid_user_id'));
    for (let i = 0; i < 4; i += 1) await store.host.createWebhook('u_1', `https://hooks.example.com/${i}`);
    await assert.rejects(
      store.host.createWebhook('u_1', 'https://hooks.example.com/6'),
      hostRefusal('too_many_webhooks'),
    );
    assert.equal((await store.host.listWebhooks('u_1')).length, 5);
  });

  test("acts only on the user's own endpoints: another user's id is as unknown as a made-up one", async () => {
    const own = await store.host.createWebhook('u_2', 'https://hooks.example.com/own');
    for (const id of [own.id, 'wh_unknown']) {
      assert.equal(await store.host.deleteWebhook('u_3', id), false);
      assert.equal(await store.host.enableWebhook('u_3', id), false);
      assert.equal(await store.host.rotateWebhookSecret('u_3', id), undefined);
      assert.equal(await store.host.testWebhook('u_3', id), undefined);
      assert.deepEqual(await store.host.listWebhookAttempts('u_3', id), []);
    }
    assert.equal((await store.host.listWebhooks('u_2')).length, 1);

    const rotated = await store.host.rotateWebhookSecret('u_2', own.id);
    assert.equal(rotated?.id, own.id);
    assert.match(rotated?.secret ?? '', /^whsec_/);
    assert.notEqual(rotated?.secret, own.secret);
    const queued = await store.host.testWebhook('u_2', own.id);
    assert.match(queued?.eventId ?? '', /^msg_[0-9a-f]{32}$/);
    assert.equal(await store.host.enableWebhook('u_2', own.id), true);

    // An attempt, as the sender records it, shows in listWebhookAttempts.
    const storage = await openStorage(store.db);
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
    assert.deepEqual(await store.host.listWebhookAttempts('u_2', own.id), [
      { at: '2026-01-01T00:00:00.000Z', eventId: queued?.eventId, status: 204, error: null, ms: 31 },
    ]);
    assert.equal((await store.host.listWebhooks('u_2'))[0]?.lastStatus, 204);

    assert.equal(await store.host.deleteWebhook('u_2', own.id), true);
    assert.deepEqual(await store.host.listWebhooks('u_2'), []);
  });

  test('meals the back end records queue a call to each endpoint of the user', async () => {
    const endpoint = await store.host.createWebhook('u_4', 'https://hooks.example.com/meals');
    await store.host.upsertMeals('u_4', [{ id: 'hw1', title: 'Soup', type: 'lunch', date: '2025-03-01T12:00:00Z' }]);
    await store.host.deleteMeal('u_4', 'hw1');
    const storage = await openStorage(store.db);
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
