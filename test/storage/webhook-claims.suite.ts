import assert from 'node:assert/strict';
import { openStorage } from '../../src/storage/open-storage.js';
import type { ClaimedWebhookEvent } from '../../src/domain/webhook-records.js';
import { runSharedSuite } from '../support/shared-suite.js';
import {
  addEndpoint,
  attemptOf,
  claimOne,
  deliverDue,
  LEASE_MS,
  meal,
  retryAt,
  span,
  type StoreSuiteOptions,
  T0,
  withStore,
} from '../support/store-fixtures.js';

/**
 * What the webhook sender does with the outbox (storage/webhook-store.ts), the same on every
 * backend: claims and their leases, an attempt's fate, and senders on several instances that
 * never take the same event.
 */
export function runWebhookClaimsSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: webhook claims and attempts', ({ describe, test }) => {
    test('a claim leases the event: nothing more within the lease, the same event once it has run out', async () => {
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage) => {
        const endpoint = await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        const event = await claimOne(storage, T0);
        const failed = { ...attemptOf(event, T0, null), error: 'timeout', ms: 10_000 };
        const fate = { kind: 'retry', at: T0 + 5_000, stepAt: T0 + 5_000, counted: true } as const;
        await storage.webhooks.recordWebhookAttempt(event, failed, fate);
        assert.equal(await storage.webhooks.nextWebhookDueAt(), T0 + 5_000);
        assert.deepEqual(await storage.webhooks.claimDueWebhookEvents(T0 + 4_999, LEASE_MS, 10), []);
        const again = await claimOne(storage, T0 + 5_000);
        assert.deepEqual(again, { ...event, attempts: 1, stepDueAt: T0 + 5_000 });
        const record = await storage.webhooks.findWebhook(endpoint.id);
        assert.equal(record?.lastStatus, null);
        assert.equal(record?.lastAttemptAt, T0);
        assert.deepEqual(
          (await storage.webhooks.listWebhookAttempts(endpoint.id)).map((attempt) => [attempt.status, attempt.error]),
          [[null, 'timeout']],
        );
      });
    });

    test("a delivery is the endpoint's last one on its next claim; an extra try keeps the step count and the step; enabling starts both over", async () => {
      await withStore(options, async (storage) => {
        const endpoint = await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        const first = await claimOne(storage, T0);
        assert.equal(first.lastDeliveredAt, undefined);
        await storage.webhooks.recordWebhookAttempt(first, attemptOf(first, T0 + 1, 204), { kind: 'delivered' });
        await storage.writes.upsertMeals('u1', [meal('b')], T0 + 10);
        const second = await claimOne(storage, T0 + 10);
        assert.deepEqual([second.lastDeliveredAt, second.attempts, second.stepDueAt], [T0 + 1, 0, undefined]);
        // A step (counted), then an extra try before the next step (not counted).
        const step = { kind: 'retry', at: T0 + 40, stepAt: T0 + 5 * 60_000, counted: true } as const;
        await storage.webhooks.recordWebhookAttempt(second, attemptOf(second, T0 + 10, 500), step);
        const third = await claimOne(storage, T0 + 40);
        assert.deepEqual([third.attempts, third.stepDueAt], [1, T0 + 5 * 60_000]);
        const extra = { kind: 'retry', at: T0 + 70, stepAt: T0 + 5 * 60_000, counted: false } as const;
        await storage.webhooks.recordWebhookAttempt(third, attemptOf(third, T0 + 40, 500), extra);
        const fourth = await claimOne(storage, T0 + 70);
        assert.deepEqual([fourth.attempts, fourth.stepDueAt, fourth.lastDeliveredAt], [1, T0 + 5 * 60_000, T0 + 1]);
        await storage.webhooks.recordWebhookAttempt(fourth, attemptOf(fourth, T0 + 70, 410), { kind: 'disable' });
        assert.ok(await storage.webhooks.enableWebhook(endpoint.id, T0 + 100));
        const restarted = await claimOne(storage, T0 + 100);
        assert.deepEqual([restarted.attempts, restarted.stepDueAt], [0, undefined]);
      });
    });

    test('an endpoint a sender leaves to others is neither claimed nor due for it; a released event is due at once for the others, its schedule unspent', async () => {
      await withStore(options, async (storage) => {
        const endpoint = await addEndpoint(storage, 'u1');
        const other = await addEndpoint(storage, 'u2');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        await storage.writes.upsertMeals('u2', [meal('b')], T0 + 5);
        const skip = [endpoint.id];
        const claimed = await storage.webhooks.claimDueWebhookEvents(T0 + 10, LEASE_MS, 10, skip);
        assert.deepEqual(
          claimed.map((event) => event.endpointId),
          [other.id],
        );
        assert.equal(await storage.webhooks.nextWebhookDueAt([endpoint.id, other.id]), undefined);
        const event = await claimOne(storage, T0 + 10);
        assert.equal(event.endpointId, endpoint.id);
        const refused = { ...attemptOf(event, T0 + 10, null), error: 'refused_address' };
        await storage.webhooks.recordWebhookAttempt(event, refused, { kind: 'release' });
        assert.equal(await storage.webhooks.nextWebhookDueAt([other.id]), T0, 'due again at once');
        const again = await claimOne(storage, T0 + 11);
        assert.deepEqual(again, event, 'the same event, no step spent');
        assert.deepEqual(
          (await storage.webhooks.listWebhookAttempts(endpoint.id)).map((attempt) => attempt.error),
          ['refused_address'],
        );
        assert.equal((await storage.webhooks.findWebhook(endpoint.id))?.status, 'enabled');
      });
    });

    test('a disabled endpoint keeps its event and collects changes into one open event; nothing is claimed for it', async () => {
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage) => {
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
          stepAt: T0 + 9,
          counted: true,
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
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage) => {
        const endpoint = await addEndpoint(storage, 'u1');
        const other = await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        const events = await storage.webhooks.claimDueWebhookEvents(T0, LEASE_MS, 10);
        const event = events.find((e) => e.endpointId === endpoint.id);
        const otherEvent = events.find((e) => e.endpointId === other.id);
        assert.ok(event !== undefined && otherEvent !== undefined);
        await storage.webhooks.recordWebhookAttempt(otherEvent, attemptOf(otherEvent, T0, 500), retryAt(T0));
        // Two attempts in one millisecond: the later recorded counts as the newer.
        for (let i = 0; i < 55; i += 1) {
          await storage.webhooks.recordWebhookAttempt(
            event,
            attemptOf(event, T0 + Math.floor(i / 2), 500 + i),
            retryAt(T0 + i),
          );
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
      await withStore(options, async (storage) => {
        assert.equal(await storage.webhooks.nextWebhookDueAt(), undefined);
        assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 0, oldestCreatedAt: undefined });
        await addEndpoint(storage, 'u1');
        await addEndpoint(storage, 'u2');
        await storage.writes.upsertMeals('u1', [meal('a')], T0 + 500);
        await storage.writes.upsertMeals('u2', [meal('b')], T0 + 100);
        assert.equal(await storage.webhooks.nextWebhookDueAt(), T0 + 100);
        assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 2, oldestCreatedAt: T0 + 100 });
        const u2 = await claimOne(storage, T0 + 100);
        await storage.webhooks.recordWebhookAttempt(u2, attemptOf(u2, T0 + 100, 500), retryAt(T0 + 9_000));
        assert.equal(await storage.webhooks.nextWebhookDueAt(), T0 + 500);
        await deliverDue(storage, T0 + 500);
        assert.equal(await storage.webhooks.nextWebhookDueAt(), T0 + 9_000);
        assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 1, oldestCreatedAt: T0 + 100 });
      });
    });

    test('an attempt recorded for a deleted endpoint, or an event no longer pending, changes nothing', async () => {
      await withStore(options, async (storage) => {
        const endpoint = await addEndpoint(storage, 'u1');
        await storage.writes.upsertMeals('u1', [meal('a')], T0);
        const event = await claimOne(storage, T0);
        await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0), { kind: 'delivered' });
        // A late record of the same event (a sender whose lease ran out) touches no newer event.
        await storage.writes.upsertMeals('u1', [meal('b')], T0 + 10);
        await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0 + 20), { kind: 'delivered' });
        assert.equal((await storage.webhooks.webhookBacklog()).pending, 1);
        await storage.webhooks.deleteWebhook(endpoint.id);
        await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0 + 30), retryAt(T0 + 40));
        assert.deepEqual(await storage.webhooks.listWebhookAttempts(endpoint.id), []);
        assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 0, oldestCreatedAt: undefined });
      });
    });

    describe('with concurrent instances', () => {
      test('two senders claiming at once never take the same event', async () => {
        await withStore(options, async (storage, location) => {
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
        await withStore(options, async (storage, location) => {
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
  });
}
