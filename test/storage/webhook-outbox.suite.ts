import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openStorage } from '../../src/storage/open-storage.js';
import { runSharedSuite } from '../support/shared-suite.js';
import {
  addEndpoint,
  attemptOf,
  claimOne,
  deliverDue,
  EVENT_ID_RE,
  LEASE_MS,
  MAX_WEBHOOKS,
  meal,
  newEndpoint,
  retryAt,
  span,
  type StoreSuiteOptions,
  T0,
  withStore,
} from '../support/store-fixtures.js';

/**
 * Webhook endpoints and the outbox (storage/webhook-store.ts), the same on every backend: the
 * limit of 5 endpoints, exact under concurrency, and the events each change queues in its own
 * transaction: one open event per endpoint, extended until it is claimed.
 */
export function runWebhookOutboxSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: webhook endpoints and the outbox', ({ describe, test }) => {
    describe('webhook endpoints', () => {
      test('creates, lists oldest first, finds and deletes endpoints; another user sees none of them', async () => {
        await withStore(options, async (storage) => {
          const first = newEndpoint('u1', { name: 'shop', createdAt: T0 + 5 });
          const created = await storage.webhooks.createWebhook(first, MAX_WEBHOOKS);
          assert.deepEqual(created, {
            ok: true,
            endpoint: {
              id: first.id,
              userId: 'u1',
              url: first.url,
              name: 'shop',
              status: 'enabled',
              createdAt: T0 + 5,
              secret: first.secret,
              previousSecret: null,
              previousSecretExpiresAt: null,
              lastAttemptAt: null,
              lastStatus: null,
            },
          });
          const older = await addEndpoint(storage, 'u1', { createdAt: T0 });
          await addEndpoint(storage, 'u2');
          assert.deepEqual(
            (await storage.webhooks.listWebhooks('u1')).map((endpoint) => endpoint.id),
            [older.id, first.id],
          );
          assert.deepEqual(await storage.webhooks.findWebhook(first.id), created.ok ? created.endpoint : undefined);
          assert.equal(await storage.webhooks.findWebhook('wh_unknown'), undefined);

          assert.equal(await storage.webhooks.deleteWebhook(first.id), true);
          assert.equal(await storage.webhooks.deleteWebhook(first.id), false);
          assert.equal(await storage.webhooks.findWebhook(first.id), undefined);
          assert.deepEqual(
            (await storage.webhooks.listWebhooks('u1')).map((endpoint) => endpoint.id),
            [older.id],
          );
          assert.deepEqual(await storage.webhooks.listWebhooks('nobody'), []);
        });
      });

      test('deleting an endpoint removes its pending events and its attempts', async () => {
        await withStore(options, async (storage) => {
          const endpoint = await addEndpoint(storage, 'u1');
          await storage.writes.upsertMeals('u1', [meal('a')], T0);
          const event = await claimOne(storage, T0);
          await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0, 500), retryAt(T0 + 5000));
          await storage.writes.upsertMeals('u1', [meal('b')], T0);
          assert.equal((await storage.webhooks.webhookBacklog()).pending, 2);
          assert.equal((await storage.webhooks.listWebhookAttempts(endpoint.id)).length, 1);

          assert.equal(await storage.webhooks.deleteWebhook(endpoint.id), true);
          assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 0, oldestCreatedAt: undefined });
          assert.deepEqual(await storage.webhooks.listWebhookAttempts(endpoint.id), []);
          assert.deepEqual(await storage.webhooks.claimDueWebhookEvents(T0 + 60_000, LEASE_MS, 10), []);
          assert.equal(await storage.webhooks.nextWebhookDueAt(), undefined);
        });
      });

      test('refuses a 6th endpoint of a user, not counting other users, and allows one again after a delete', async () => {
        await withStore(options, async (storage) => {
          const ids = [];
          for (let i = 0; i < MAX_WEBHOOKS; i += 1) ids.push((await addEndpoint(storage, 'u1')).id);
          await addEndpoint(storage, 'u2');
          assert.deepEqual(await storage.webhooks.createWebhook(newEndpoint('u1'), MAX_WEBHOOKS), {
            ok: false,
            reason: 'too_many_webhooks',
          });
          assert.equal((await storage.webhooks.listWebhooks('u1')).length, MAX_WEBHOOKS);
          await storage.webhooks.deleteWebhook(ids[0] ?? '');
          await addEndpoint(storage, 'u1');
        });
      });

      test('refuses an endpoint whose id is taken (a creation sent twice), even at the limit, changing nothing', async () => {
        await withStore(options, async (storage) => {
          const endpoint = newEndpoint('u1');
          assert.equal((await storage.webhooks.createWebhook(endpoint, MAX_WEBHOOKS)).ok, true);
          const again = { ...endpoint, url: 'https://other.example.com/' };
          assert.deepEqual(await storage.webhooks.createWebhook(again, MAX_WEBHOOKS), {
            ok: false,
            reason: 'duplicate_id',
          });
          assert.deepEqual(await storage.webhooks.createWebhook({ ...again, userId: 'u2' }, MAX_WEBHOOKS), {
            ok: false,
            reason: 'duplicate_id',
          });
          for (let i = 1; i < MAX_WEBHOOKS; i += 1) await addEndpoint(storage, 'u1');
          assert.deepEqual(await storage.webhooks.createWebhook(again, MAX_WEBHOOKS), {
            ok: false,
            reason: 'duplicate_id',
          });
          assert.equal((await storage.webhooks.findWebhook(endpoint.id))?.url, endpoint.url);
          assert.deepEqual(await storage.webhooks.listWebhooks('u2'), []);
        });
      });

      test('10 creations for one user at once from two handles: exactly 5 succeed', async () => {
        await withStore(options, async (storage, location) => {
          const second = await openStorage(location);
          try {
            const results = await Promise.all(
              Array.from({ length: 10 }, (_, i) =>
                (i % 2 === 0 ? storage : second).webhooks.createWebhook(newEndpoint('u1'), MAX_WEBHOOKS),
              ),
            );
            assert.equal(results.filter((result) => result.ok).length, MAX_WEBHOOKS);
            assert.ok(results.every((result) => result.ok || result.reason === 'too_many_webhooks'));
            assert.equal((await second.webhooks.listWebhooks('u1')).length, MAX_WEBHOOKS);
          } finally {
            await second.close();
          }
        });
      });

      test('rotating the secret keeps the previous one signing until it expires; an unknown id gives false', async () => {
        await withStore(options, async (storage) => {
          const endpoint = await addEndpoint(storage, 'u1');
          const next = `whsec_${randomBytes(32).toString('base64')}`;
          const expires = T0 + 86_400_000;
          assert.equal(await storage.webhooks.rotateWebhookSecret(endpoint.id, next, expires), true);
          const rotated = await storage.webhooks.findWebhook(endpoint.id);
          assert.equal(rotated?.secret, next);
          assert.equal(rotated?.previousSecret, endpoint.secret);
          assert.equal(rotated?.previousSecretExpiresAt, expires);

          await storage.writes.upsertMeals('u1', [meal('a')], T0);
          const event = await claimOne(storage, T0 + 1000);
          assert.deepEqual(event.secrets, [next, endpoint.secret]);
          await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0 + 1000, 503), retryAt(expires));
          assert.deepEqual((await claimOne(storage, expires)).secrets, [next], 'the previous secret has expired');
          assert.equal(await storage.webhooks.rotateWebhookSecret('wh_unknown', next, expires), false);
        });
      });
    });

    describe('the webhook outbox', () => {
      test('an import of N meals queues one event covering its first to its last modifiedAt, due now', async () => {
        await withStore(options, async (storage) => {
          const endpoint = await addEndpoint(storage, 'u1');
          assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 0, oldestCreatedAt: undefined });
          await storage.writes.upsertMeals(
            'u1',
            ['a', 'b', 'c', 'd'].map((id) => meal(id)),
            T0,
          );
          assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 1, oldestCreatedAt: T0 });
          assert.equal(await storage.webhooks.nextWebhookDueAt(), T0);
          const event = await claimOne(storage, T0);
          assert.match(event.eventId, EVENT_ID_RE);
          assert.deepEqual(
            { ...event, eventId: 'x' },
            {
              endpointId: endpoint.id,
              userId: 'u1',
              url: endpoint.url,
              secrets: [endpoint.secret],
              seq: event.seq,
              eventId: 'x',
              type: 'meals.changed',
              from: T0,
              through: T0 + 3,
              attempts: 0,
              stepDueAt: undefined,
              lastDeliveredAt: undefined,
              createdAt: T0,
              erased: false,
            },
          );
        });
      });

      test("a user's first write queues its event too, on the new-user path as on the update path", async () => {
        await withStore(options, async (storage) => {
          await addEndpoint(storage, 'new');
          // The first write of a user appends without looking ids up (sqlite-append.ts).
          await storage.writes.upsertMeals('new', [meal('n1'), meal('n2')], T0 + 7);
          assert.deepEqual(span(await claimOne(storage, T0 + 7)), [T0 + 7, T0 + 8]);
        });
      });

      test('a second change before any attempt extends the open event: one event, from the first to the last', async () => {
        await withStore(options, async (storage) => {
          await addEndpoint(storage, 'u1');
          await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
          await storage.writes.upsertMeals('u1', [meal('a', { title: 'changed' })], T0 + 100);
          await storage.writes.deleteMeal('u1', 'b', T0 + 200);
          assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 1, oldestCreatedAt: T0 });
          const event = await claimOne(storage, T0 + 300);
          assert.deepEqual(span(event), [T0, T0 + 200]);
          assert.deepEqual(await storage.webhooks.claimDueWebhookEvents(T0 + 300, LEASE_MS, 10), []);
        });
      });

      test('after a claim the next change opens a new event, sent after the first, one per endpoint at a time', async () => {
        await withStore(options, async (storage) => {
          await addEndpoint(storage, 'u1');
          await storage.writes.upsertMeals('u1', [meal('a')], T0);
          const first = await claimOne(storage, T0);
          await storage.writes.upsertMeals('u1', [meal('b')], T0 + 10);
          await storage.writes.upsertMeals('u1', [meal('c')], T0 + 20);
          assert.equal((await storage.webhooks.webhookBacklog()).pending, 2);
          // The first is in flight: the second waits for it, even once due.
          assert.deepEqual(await storage.webhooks.claimDueWebhookEvents(T0 + 30, LEASE_MS, 10), []);
          await storage.webhooks.recordWebhookAttempt(first, attemptOf(first, T0 + 40), { kind: 'delivered' });
          // Delivered: the next one is due at once.
          assert.equal(await storage.webhooks.nextWebhookDueAt(), T0 + 10);
          const second = await claimOne(storage, T0 + 40);
          assert.ok(second.seq > first.seq);
          assert.notEqual(second.eventId, first.eventId);
          assert.deepEqual(span(first), [T0, T0]);
          assert.deepEqual(span(second), [T0 + 10, T0 + 20]);
        });
      });

      test('an unchanged re-import, an already deleted meal and a foreign id queue nothing', async () => {
        await withStore(options, async (storage) => {
          await addEndpoint(storage, 'u1');
          await addEndpoint(storage, 'u2');
          await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
          await storage.writes.deleteMeal('u1', 'b', T0);
          assert.equal((await deliverDue(storage, T0 + 10)).length, 1);

          const again = await storage.writes.upsertMeals('u1', [meal('a')], T0 + 20);
          assert.deepEqual(again, { ok: true, created: 0, updated: 0, unchanged: 1, stale: 0 });
          assert.equal(await storage.writes.deleteMeal('u1', 'b', T0 + 20), 'already_deleted');
          assert.equal(await storage.writes.deleteMeal('u1', 'nothing', T0 + 20), 'not_found');
          const foreign = await storage.writes.upsertMeals('u2', [meal('new'), meal('a')], T0 + 20);
          assert.deepEqual(foreign, { ok: false, reason: 'foreign_id', index: 1 });
          assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 0, oldestCreatedAt: undefined });
          assert.equal(await storage.webhooks.nextWebhookDueAt(), undefined);
        });
      });

      test('a delete queues an event whose from and through are the tombstone', async () => {
        await withStore(options, async (storage) => {
          await addEndpoint(storage, 'u1');
          await storage.writes.upsertMeals('u1', [meal('a')], T0);
          await deliverDue(storage, T0);
          assert.equal(await storage.writes.deleteMeal('u1', 'a', T0 + 50), 'deleted');
          assert.deepEqual(span(await claimOne(storage, T0 + 50)), [T0 + 50, T0 + 50]);
        });
      });

      test("two endpoints of one user get one event each for a change; other users' changes queue none", async () => {
        await withStore(options, async (storage) => {
          const a = await addEndpoint(storage, 'u1');
          const b = await addEndpoint(storage, 'u1');
          await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
          await storage.writes.upsertMeals('u3', [meal('c')], T0);
          assert.equal((await storage.webhooks.webhookBacklog()).pending, 2);
          const events = await storage.webhooks.claimDueWebhookEvents(T0, LEASE_MS, 10);
          assert.deepEqual(events.map((event) => event.endpointId).sort(), [a.id, b.id].sort());
          assert.deepEqual(events.map(span), [
            [T0, T0 + 1],
            [T0, T0 + 1],
          ]);
          assert.notEqual(events[0]?.eventId, events[1]?.eventId);
        });
      });

      test('a user without endpoints queues nothing, and an endpoint hears only of changes after its creation', async () => {
        await withStore(options, async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a')], T0);
          assert.equal((await storage.webhooks.webhookBacklog()).pending, 0);
          await addEndpoint(storage, 'u1');
          assert.equal((await storage.webhooks.webhookBacklog()).pending, 0);
          await storage.writes.upsertMeals('u1', [meal('b')], T0);
          assert.deepEqual(span(await claimOne(storage, T0 + 1)), [T0 + 1, T0 + 1]);
        });
      });
    });
  });
}
