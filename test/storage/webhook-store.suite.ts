import { plainMeal } from '../support/contract.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { randomId } from '../../src/domain/random-id.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import type {
  ClaimedWebhookEvent,
  NewWebhookEndpoint,
  WebhookAttemptRecord,
} from '../../src/domain/webhook-records.js';
import type { StorageBackend } from './storage.suite.js';

const T0 = Date.UTC(2025, 5, 10, 12);
const LEASE_MS = 30_000;
const MAX = 5;
const EVENT_ID_RE = /^msg_[0-9a-f]{32}$/;

const meal = plainMeal;

function newEndpoint(userId: string, fields: Partial<NewWebhookEndpoint> = {}): NewWebhookEndpoint {
  return {
    id: randomId('wh_'),
    userId,
    url: `https://hooks.example.com/${userId}`,
    name: '',
    secret: `whsec_${randomBytes(32).toString('base64')}`,
    createdAt: T0,
    ...fields,
  };
}

function attemptOf(event: ClaimedWebhookEvent, at: number, status: number | null = 200): WebhookAttemptRecord {
  return { endpointId: event.endpointId, eventId: event.eventId, at, status, error: null, ms: 12 };
}

/** Creates an endpoint that must be accepted; its id. */
async function addEndpoint(storage: Storage, userId: string, fields: Partial<NewWebhookEndpoint> = {}) {
  const result = await storage.webhooks.createWebhook(newEndpoint(userId, fields), MAX);
  assert.ok(result.ok, JSON.stringify(result));
  return result.endpoint;
}

/** Claims at `now` and expects exactly one event. */
async function claimOne(storage: Storage, now: number): Promise<ClaimedWebhookEvent> {
  const events = await storage.webhooks.claimDueWebhookEvents(now, LEASE_MS, 10);
  assert.equal(events.length, 1, JSON.stringify(events));
  return events[0] as ClaimedWebhookEvent;
}

/** Claims and delivers whatever is due at `now`: the events as they were claimed. */
async function deliverDue(storage: Storage, now: number): Promise<ClaimedWebhookEvent[]> {
  const events = await storage.webhooks.claimDueWebhookEvents(now, LEASE_MS, 100);
  for (const event of events)
    await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, now), { kind: 'delivered' });
  return events;
}

const span = (event: ClaimedWebhookEvent) => [event.from, event.through];

/**
 * The webhook store (src/storage/webhook-store.ts, CONTRACT.md section 8), the same on every
 * backend: endpoints and their limit, the outbox written with each change, claims, leases and
 * what an attempt's fate does.
 */
export function runWebhookStoreSuite(backend: Pick<StorageBackend, 'name' | 'skip' | 'newLocation'>): void {
  async function withStore(work: (storage: Storage, location: string) => Promise<void>): Promise<void> {
    const { location, remove } = await backend.newLocation('webhooks');
    const storage = await openStorage(location);
    try {
      await work(storage, location);
    } finally {
      await storage.close();
      await remove();
    }
  }

  describe(`${backend.name} storage: webhook endpoints`, { skip: backend.skip ?? false }, () => {
    test('creates, lists oldest first, finds and deletes endpoints; another user sees none of them', async () => {
      await withStore(async (storage) => {
        const first = newEndpoint('u1', { name: 'shop', createdAt: T0 + 5 });
        const created = await storage.webhooks.createWebhook(first, MAX);
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
      await withStore(async (storage) => {
        const endpoint = await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        const event = await claimOne(storage, T0);
        await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0, 500), { kind: 'retry', at: T0 + 5000 });
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
      await withStore(async (storage) => {
        const ids = [];
        for (let i = 0; i < MAX; i += 1) ids.push((await addEndpoint(storage, 'u1')).id);
        await addEndpoint(storage, 'u2');
        assert.deepEqual(await storage.webhooks.createWebhook(newEndpoint('u1'), MAX), {
          ok: false,
          reason: 'too_many_webhooks',
        });
        assert.equal((await storage.webhooks.listWebhooks('u1')).length, MAX);
        await storage.webhooks.deleteWebhook(ids[0] ?? '');
        await addEndpoint(storage, 'u1');
      });
    });

    test('refuses an endpoint whose id is taken (a creation sent twice), even at the limit, changing nothing', async () => {
      await withStore(async (storage) => {
        const endpoint = newEndpoint('u1');
        assert.equal((await storage.webhooks.createWebhook(endpoint, MAX)).ok, true);
        const again = { ...endpoint, url: 'https://other.example.com/' };
        assert.deepEqual(await storage.webhooks.createWebhook(again, MAX), { ok: false, reason: 'duplicate_id' });
        assert.deepEqual(await storage.webhooks.createWebhook({ ...again, userId: 'u2' }, MAX), {
          ok: false,
          reason: 'duplicate_id',
        });
        for (let i = 1; i < MAX; i += 1) await addEndpoint(storage, 'u1');
        assert.deepEqual(await storage.webhooks.createWebhook(again, MAX), { ok: false, reason: 'duplicate_id' });
        assert.equal((await storage.webhooks.findWebhook(endpoint.id))?.url, endpoint.url);
        assert.deepEqual(await storage.webhooks.listWebhooks('u2'), []);
      });
    });

    test('10 creations for one user at once from two handles: exactly 5 succeed', async () => {
      await withStore(async (storage, location) => {
        const second = await openStorage(location);
        try {
          const results = await Promise.all(
            Array.from({ length: 10 }, (_, i) =>
              (i % 2 === 0 ? storage : second).webhooks.createWebhook(newEndpoint('u1'), MAX),
            ),
          );
          assert.equal(results.filter((result) => result.ok).length, MAX);
          assert.ok(results.every((result) => result.ok || result.reason === 'too_many_webhooks'));
          assert.equal((await second.webhooks.listWebhooks('u1')).length, MAX);
        } finally {
          await second.close();
        }
      });
    });

    test('rotating the secret keeps the previous one signing until it expires; an unknown id gives false', async () => {
      await withStore(async (storage) => {
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
        await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0 + 1000, 503), {
          kind: 'retry',
          at: expires,
        });
        assert.deepEqual((await claimOne(storage, expires)).secrets, [next], 'the previous secret has expired');
        assert.equal(await storage.webhooks.rotateWebhookSecret('wh_unknown', next, expires), false);
      });
    });
  });

  describe(`${backend.name} storage: the webhook outbox`, { skip: backend.skip ?? false }, () => {
    test('an import of N meals queues one event covering its first to its last modifiedAt, due now', async () => {
      await withStore(async (storage) => {
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
            createdAt: T0,
          },
        );
      });
    });

    test("a user's first write queues its event too, on the new-user path as on the update path", async () => {
      await withStore(async (storage) => {
        await addEndpoint(storage, 'new');
        // The first write of a user appends without looking ids up (sqlite-append.ts).
        await storage.writes.upsertMeals('new', [meal('n1'), meal('n2')], T0 + 7);
        assert.deepEqual(span(await claimOne(storage, T0 + 7)), [T0 + 7, T0 + 8]);
      });
    });

    test('a second change before any attempt extends the open event: one event, from the first to the last', async () => {
      await withStore(async (storage) => {
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
      await withStore(async (storage) => {
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
      await withStore(async (storage) => {
        await addEndpoint(storage, 'u1');
        await addEndpoint(storage, 'u2');
        await storage.writes.upsertMeals('u1', [meal('a'), meal('b')], T0);
        await storage.writes.deleteMeal('u1', 'b', T0);
        assert.equal((await deliverDue(storage, T0 + 10)).length, 1);

        const again = await storage.writes.upsertMeals('u1', [meal('a')], T0 + 20);
        assert.deepEqual(again, { ok: true, created: 0, updated: 0, unchanged: 1 });
        assert.equal(await storage.writes.deleteMeal('u1', 'b', T0 + 20), 'already_deleted');
        assert.equal(await storage.writes.deleteMeal('u1', 'nothing', T0 + 20), 'not_found');
        const foreign = await storage.writes.upsertMeals('u2', [meal('new'), meal('a')], T0 + 20);
        assert.deepEqual(foreign, { ok: false, reason: 'foreign_id', index: 1 });
        assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 0, oldestCreatedAt: undefined });
        assert.equal(await storage.webhooks.nextWebhookDueAt(), undefined);
      });
    });

    test('a delete queues an event whose from and through are the tombstone', async () => {
      await withStore(async (storage) => {
        await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        await deliverDue(storage, T0);
        assert.equal(await storage.writes.deleteMeal('u1', 'a', T0 + 50), 'deleted');
        assert.deepEqual(span(await claimOne(storage, T0 + 50)), [T0 + 50, T0 + 50]);
      });
    });

    test("two endpoints of one user get one event each for a change; other users' changes queue none", async () => {
      await withStore(async (storage) => {
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
      await withStore(async (storage) => {
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        assert.equal((await storage.webhooks.webhookBacklog()).pending, 0);
        await addEndpoint(storage, 'u1');
        assert.equal((await storage.webhooks.webhookBacklog()).pending, 0);
        await storage.writes.upsertMeals('u1', [meal('b')], T0);
        assert.deepEqual(span(await claimOne(storage, T0 + 1)), [T0 + 1, T0 + 1]);
      });
    });
  });

  describe(`${backend.name} storage: claims and attempts`, { skip: backend.skip ?? false }, () => {
    test('a claim leases the event: nothing more within the lease, the same event once it has run out', async () => {
      await withStore(async (storage) => {
        await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        const event = await claimOne(storage, T0 + 100);
        assert.deepEqual(await storage.webhooks.claimDueWebhookEvents(T0 + 100, LEASE_MS, 10), []);
        assert.deepEqual(await storage.webhooks.claimDueWebhookEvents(T0 + 100 + LEASE_MS - 1, LEASE_MS, 10), []);
        assert.equal(await storage.webhooks.nextWebhookDueAt(), T0 + 100 + LEASE_MS, 'due when the lease runs out');
        // A change meanwhile goes to a new event: the leased one is fixed.
        await storage.writes.upsertMeals('u1', [meal('b')], T0 + 200);
        const again = await claimOne(storage, T0 + 100 + LEASE_MS);
        assert.deepEqual(again, event);
      });
    });

    test('claims take at most `max` events, the longest due first', async () => {
      await withStore(async (storage) => {
        for (const [i, user] of ['u1', 'u2', 'u3'].entries()) {
          await addEndpoint(storage, user);
          await storage.writes.upsertMeals(user, [meal(`${user}-a`)], T0 + 10 * (3 - i));
        }
        const first = await storage.webhooks.claimDueWebhookEvents(T0 + 100, LEASE_MS, 2);
        assert.deepEqual(
          first.map((event) => event.userId),
          ['u3', 'u2'],
        );
        assert.deepEqual(
          (await storage.webhooks.claimDueWebhookEvents(T0 + 100, LEASE_MS, 2)).map((event) => event.userId),
          ['u1'],
        );
        assert.deepEqual(await storage.webhooks.claimDueWebhookEvents(T0 + 100, LEASE_MS, 0), []);
      });
    });

    test('a delivered attempt removes the event and is recorded on the endpoint', async () => {
      await withStore(async (storage) => {
        const endpoint = await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        const event = await claimOne(storage, T0 + 1);
        await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0 + 1, 204), { kind: 'delivered' });
        assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 0, oldestCreatedAt: undefined });
        const after = await storage.webhooks.findWebhook(endpoint.id);
        assert.equal(after?.lastAttemptAt, T0 + 1);
        assert.equal(after?.lastStatus, 204);
        assert.equal(after?.status, 'enabled');
        assert.deepEqual(await storage.webhooks.listWebhookAttempts(endpoint.id), [
          { endpointId: endpoint.id, eventId: event.eventId, at: T0 + 1, status: 204, error: null, ms: 12 },
        ]);
        assert.equal(await storage.webhooks.nextWebhookDueAt(), undefined);
      });
    });

    test('a retry releases the lease, counts the attempt and makes the same event due at the time given', async () => {
      await withStore(async (storage) => {
        const endpoint = await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        const event = await claimOne(storage, T0);
        const failed = { ...attemptOf(event, T0, null), error: 'timeout', ms: 10_000 };
        await storage.webhooks.recordWebhookAttempt(event, failed, { kind: 'retry', at: T0 + 5_000 });
        assert.equal(await storage.webhooks.nextWebhookDueAt(), T0 + 5_000);
        assert.deepEqual(await storage.webhooks.claimDueWebhookEvents(T0 + 4_999, LEASE_MS, 10), []);
        const again = await claimOne(storage, T0 + 5_000);
        assert.deepEqual(again, { ...event, attempts: 1 });
        const record = await storage.webhooks.findWebhook(endpoint.id);
        assert.equal(record?.lastStatus, null);
        assert.equal(record?.lastAttemptAt, T0);
        assert.deepEqual(
          (await storage.webhooks.listWebhookAttempts(endpoint.id)).map((attempt) => [attempt.status, attempt.error]),
          [[null, 'timeout']],
        );
      });
    });

    test('a disabled endpoint keeps its event and collects changes into one open event; nothing is claimed for it', async () => {
      await withStore(async (storage) => {
        const endpoint = await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        const event = await claimOne(storage, T0);
        await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0, 410), { kind: 'disable' });
        assert.equal((await storage.webhooks.findWebhook(endpoint.id))?.status, 'disabled');
        assert.equal((await storage.webhooks.findWebhook(endpoint.id))?.lastStatus, 410);
        await storage.writes.upsertMeals('u1', [meal('b')], T0 + 10);
        await storage.writes.upsertMeals('u1', [meal('c')], T0 + 20);
        await storage.writes.deleteMeal('u1', 'a', T0 + 30);
        assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 2, oldestCreatedAt: T0 });
        assert.deepEqual(await storage.webhooks.claimDueWebhookEvents(T0 + 86_400_000, LEASE_MS, 10), []);
        assert.equal(await storage.webhooks.nextWebhookDueAt(), undefined);

        // Enabled: both due now, the attempts counted from zero again, in order.
        assert.equal(await storage.webhooks.enableWebhook(endpoint.id, T0 + 100), true);
        assert.equal((await storage.webhooks.findWebhook(endpoint.id))?.status, 'enabled');
        assert.equal(await storage.webhooks.nextWebhookDueAt(), T0 + 100);
        const again = await claimOne(storage, T0 + 100);
        assert.deepEqual(again, { ...event, attempts: 0 });
        // Sealed by its first claim: enabling reset its attempts, yet a change does not go into it.
        await storage.writes.upsertMeals('u1', [meal('d')], T0 + 110);
        await storage.webhooks.recordWebhookAttempt(again, attemptOf(again, T0 + 120), { kind: 'delivered' });
        const collected = await claimOne(storage, T0 + 120);
        assert.deepEqual(span(collected), [T0 + 10, T0 + 110]);
        assert.equal(collected.attempts, 0);
        assert.equal(await storage.webhooks.enableWebhook('wh_unknown', T0), false);
      });
    });

    test("disabling one endpoint leaves the user's others enabled; enabling it makes its event due now", async () => {
      await withStore(async (storage) => {
        const endpoint = await addEndpoint(storage, 'u1');
        const other = await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        // The other endpoint's failure to disable it, then a change for both.
        const events = await storage.webhooks.claimDueWebhookEvents(T0, LEASE_MS, 10);
        const otherEvent = events.find((event) => event.endpointId === other.id);
        assert.ok(otherEvent !== undefined);
        await storage.webhooks.recordWebhookAttempt(otherEvent, attemptOf(otherEvent, T0, 500), {
          kind: 'retry',
          at: T0 + 9,
        });
        await storage.webhooks.recordWebhookAttempt(otherEvent, attemptOf(otherEvent, T0 + 9, 410), {
          kind: 'disable',
        });
        assert.equal((await storage.webhooks.findWebhook(other.id))?.status, 'disabled');
        assert.equal((await storage.webhooks.findWebhook(endpoint.id))?.status, 'enabled');
        assert.equal(await storage.webhooks.enableWebhook(other.id, T0 + 50), true);
        const again = await storage.webhooks.claimDueWebhookEvents(T0 + 50, LEASE_MS, 10);
        assert.deepEqual(again, [{ ...otherEvent, attempts: 0 }]);
      });
    });

    test('a test event is queued after the pending ones, due now, with the id given; a change then opens a new event', async () => {
      await withStore(async (storage) => {
        const endpoint = await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        assert.equal(await storage.webhooks.queueWebhookTest(endpoint.id, 'msg_test1', T0 + 5), true);
        await storage.writes.upsertMeals('u1', [meal('b')], T0 + 10);
        assert.equal(await storage.webhooks.queueWebhookTest('wh_unknown', 'msg_test2', T0 + 5), false);
        assert.equal((await storage.webhooks.webhookBacklog()).pending, 3);

        const sent = [];
        for (let now = T0 + 20; sent.length < 3; now += 1) sent.push(...(await deliverDue(storage, now)));
        assert.deepEqual(
          sent.map((event) => [event.type, event.from, event.through]),
          [
            ['meals.changed', T0, T0],
            ['webhook.test', null, null],
            ['meals.changed', T0 + 10, T0 + 10],
          ],
        );
        assert.equal(sent[1]?.eventId, 'msg_test1');
      });
    });

    test('an endpoint keeps its 50 newest attempts, listed newest first', async () => {
      await withStore(async (storage) => {
        const endpoint = await addEndpoint(storage, 'u1');
        const other = await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        const events = await storage.webhooks.claimDueWebhookEvents(T0, LEASE_MS, 10);
        const event = events.find((e) => e.endpointId === endpoint.id);
        const otherEvent = events.find((e) => e.endpointId === other.id);
        assert.ok(event !== undefined && otherEvent !== undefined);
        await storage.webhooks.recordWebhookAttempt(otherEvent, attemptOf(otherEvent, T0, 500), {
          kind: 'retry',
          at: T0,
        });
        // Two attempts in one millisecond: the later recorded counts as the newer.
        for (let i = 0; i < 55; i += 1) {
          await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0 + Math.floor(i / 2), 500 + i), {
            kind: 'retry',
            at: T0 + i,
          });
        }
        const attempts = await storage.webhooks.listWebhookAttempts(endpoint.id);
        assert.equal(attempts.length, 50);
        assert.deepEqual(
          attempts.map((attempt) => attempt.status),
          Array.from({ length: 50 }, (_, i) => 554 - i),
        );
        assert.equal(
          (await storage.webhooks.listWebhookAttempts(other.id)).length,
          1,
          "other endpoints' attempts are kept",
        );
        const due = await storage.webhooks.claimDueWebhookEvents(T0 + 1000, LEASE_MS, 10);
        assert.deepEqual(
          due.map((e) => [e.endpointId, e.attempts]).sort(),
          [
            [endpoint.id, 55],
            [other.id, 1],
          ].sort(),
        );
      });
    });

    test('nextWebhookDueAt and webhookBacklog follow the pending events', async () => {
      await withStore(async (storage) => {
        assert.equal(await storage.webhooks.nextWebhookDueAt(), undefined);
        assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 0, oldestCreatedAt: undefined });
        await addEndpoint(storage, 'u1');
        await addEndpoint(storage, 'u2');
        await storage.writes.upsertMeals('u1', [meal('a')], T0 + 500);
        await storage.writes.upsertMeals('u2', [meal('b')], T0 + 100);
        assert.equal(await storage.webhooks.nextWebhookDueAt(), T0 + 100);
        assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 2, oldestCreatedAt: T0 + 100 });
        const u2 = await claimOne(storage, T0 + 100);
        await storage.webhooks.recordWebhookAttempt(u2, attemptOf(u2, T0 + 100, 500), {
          kind: 'retry',
          at: T0 + 9_000,
        });
        assert.equal(await storage.webhooks.nextWebhookDueAt(), T0 + 500);
        await deliverDue(storage, T0 + 500);
        assert.equal(await storage.webhooks.nextWebhookDueAt(), T0 + 9_000);
        assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 1, oldestCreatedAt: T0 + 100 });
      });
    });

    test('an attempt recorded for a deleted endpoint, or an event no longer pending, changes nothing', async () => {
      await withStore(async (storage) => {
        const endpoint = await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        const event = await claimOne(storage, T0);
        await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0), { kind: 'delivered' });
        // A late record of the same event (a sender whose lease ran out) touches no newer event.
        await storage.writes.upsertMeals('u1', [meal('b')], T0 + 10);
        await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0 + 20), { kind: 'delivered' });
        assert.equal((await storage.webhooks.webhookBacklog()).pending, 1);
        await storage.webhooks.deleteWebhook(endpoint.id);
        await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0 + 30), { kind: 'retry', at: T0 + 40 });
        assert.deepEqual(await storage.webhooks.listWebhookAttempts(endpoint.id), []);
        assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 0, oldestCreatedAt: undefined });
      });
    });
  });

  describe(`${backend.name} storage: webhooks with concurrent instances`, { skip: backend.skip ?? false }, () => {
    test('two senders claiming at once never take the same event', async () => {
      await withStore(async (storage, location) => {
        const second = await openStorage(location);
        try {
          const users = Array.from({ length: 12 }, (_, i) => `u${i}`);
          for (const user of users) {
            await addEndpoint(storage, user);
            await storage.writes.upsertMeals(user, [meal(`${user}-m`)], T0);
          }
          const claims = await Promise.all(
            Array.from({ length: 8 }, (_, i) =>
              (i % 2 === 0 ? storage : second).webhooks.claimDueWebhookEvents(T0, LEASE_MS, 3),
            ),
          );
          const claimed = claims.flat().map((event) => event.endpointId);
          assert.equal(claimed.length, users.length);
          assert.equal(new Set(claimed).size, users.length);
        } finally {
          await second.close();
        }
      });
    });

    test('changes committed while another instance claims and delivers are all covered by delivered events', async () => {
      await withStore(async (storage, location) => {
        const sender = await openStorage(location);
        try {
          await addEndpoint(storage, 'u1');
          const written: number[] = [];
          const delivered: ClaimedWebhookEvent[] = [];
          let writing = true;
          const writes = (async () => {
            for (let i = 0; i < 40; i += 1) await storage.writes.upsertMeals('u1', [meal(`c${i}`)], T0);
            writing = false;
          })();
          for (let round = 0; writing || (await sender.webhooks.webhookBacklog()).pending > 0; round += 1) {
            assert.ok(round < 10_000, 'the events are delivered');
            delivered.push(...(await deliverDue(sender, T0 + 1000)));
          }
          await writes;
          for (let i = 0; i < 40; i += 1) written.push(T0 + i);
          const covered = (at: number) =>
            delivered.some((event) => (event.from ?? Infinity) <= at && at <= (event.through ?? -Infinity));
          assert.deepEqual(
            written.filter((at) => !covered(at)),
            [],
          );
          // In order, and none covering a change another one covered.
          delivered.forEach((event, i) => {
            const previous = delivered[i - 1];
            if (previous !== undefined)
              assert.ok((event.from ?? 0) > (previous.through ?? 0), JSON.stringify(delivered));
          });
        } finally {
          await sender.close();
        }
      });
    });
  });
}
