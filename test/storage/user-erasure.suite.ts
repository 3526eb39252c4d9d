import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { erasedEndpointFate } from '../../src/domain/webhook-retry.js';
import type { Storage } from '../../src/storage/storage.js';
import { runSharedSuite } from '../support/shared-suite.js';
import {
  addEndpoint,
  attemptOf,
  DAY_MS,
  feed,
  itemTexts,
  LEASE_MS,
  meal,
  newKey,
  retryAt,
  type StoreSuiteOptions,
  T0,
  T0_DAY,
  withSecondHandle,
  withStore,
} from '../support/store-fixtures.js';

const digestOf = (text: string) => createHash('sha256').update(text).digest();

/** What a user holds besides meals: a key with a day's count, a sign-in link, a session with its flash. */
async function giveAccount(storage: Storage, userId: string) {
  const key = newKey(userId);
  assert.ok((await storage.keys.createApiKey(key, 10, T0)).ok);
  await storage.quota.recordKeyUse({
    lastUsed: new Map([[key.id, T0]]),
    requests: [{ keyId: key.id, day: T0_DAY, requests: 3 }],
  });
  const link = digestOf(`link of ${userId}`);
  await storage.signIns.createLoginToken({ digest: link, userId, createdAt: T0, expiresAt: T0 + DAY_MS });
  const session = digestOf(`session of ${userId}`);
  await storage.signIns.createSession({ digest: session, userId, createdAt: T0, expiresAt: T0 + DAY_MS });
  await storage.signIns.putSessionFlash({ digest: session, sealed: randomBytes(16), expiresAt: T0 + DAY_MS });
  return { key, link, session };
}

/**
 * Erasure (storage/user-erasure.ts), the same on every backend: everything of the user in one
 * transaction and nothing of anyone else's; each enabled endpoint kept for one `user.erased`
 * event and out of every user's reach; the same id starting after every position of its
 * former life.
 */
export function runUserErasureSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: erasing a user', ({ describe, test }) => {
    describe('what goes', () => {
      test('everything of the user, counted; nothing of another user; a retry answers zeros', async () => {
        await withStore(options, async (storage) => {
          await storage.writes.upsertMeals('u1', [meal('a'), meal('b'), meal('c')], T0);
          await storage.writes.deleteMeal('u1', 'c', T0 + 1);
          await storage.writes.upsertMeals('u2', [meal('z')], T0);
          const mine = await giveAccount(storage, 'u1');
          const theirs = await giveAccount(storage, 'u2');
          await addEndpoint(storage, 'u1');
          const other = await addEndpoint(storage, 'u2');

          assert.deepEqual(await storage.erasure.eraseUser('u1', T0 + 10), { meals: 3, keys: 1, webhooks: 1 });

          const page = await feed(storage, { userId: 'u1', includeDeleted: true });
          assert.equal(page.count, 0);
          assert.equal(page.newestChangeAt, undefined, 'the clock is gone');
          const never = await feed(storage, { userId: 'never-seen', includeDeleted: true });
          assert.deepEqual(page.liveDigest, never.liveDigest, 'the digest is gone: an unknown user’s');
          assert.equal(await storage.feed.getMeal('u1', 'a'), undefined);
          assert.deepEqual(await storage.keys.listApiKeys('u1'), []);
          assert.deepEqual(await storage.keys.findApiKeysByDigests([mine.key.digest]), [undefined]);
          assert.deepEqual(await storage.quota.listKeyRequests('u1', T0_DAY, T0_DAY), []);
          assert.equal(await storage.signIns.consumeLoginToken(mine.link, T0 + 20), undefined);
          assert.equal(await storage.signIns.findSession(mine.session, T0 + 20), undefined);
          assert.equal(await storage.signIns.takeSessionFlash(mine.session, T0 + 20), undefined);
          assert.deepEqual(await storage.webhooks.listWebhooks('u1'), []);

          assert.equal(itemTexts(await feed(storage, { userId: 'u2' })).length, 1);
          assert.equal((await storage.keys.listApiKeys('u2')).length, 1);
          assert.equal((await storage.quota.listKeyRequests('u2', T0_DAY, T0_DAY)).length, 1);
          assert.equal(await storage.signIns.consumeLoginToken(theirs.link, T0 + 20), 'u2');
          assert.equal((await storage.signIns.findSession(theirs.session, T0 + 20))?.userId, 'u2');
          assert.deepEqual(
            (await storage.webhooks.listWebhooks('u2')).map((endpoint) => endpoint.id),
            [other.id],
          );

          assert.deepEqual(await storage.erasure.eraseUser('u1', T0 + 30), { meals: 0, keys: 0, webhooks: 0 });
          assert.deepEqual(await storage.erasure.eraseUser('nobody', T0 + 30), { meals: 0, keys: 0, webhooks: 0 });
        });
      });

      test('a key refused by the erasure is refused by another handle (another instance) too', async () => {
        await withStore(options, async (storage, location) => {
          const { key } = await giveAccount(storage, 'u1');
          await withSecondHandle(location, async (second) => {
            assert.equal((await second.keys.findApiKeysByDigests([key.digest]))[0]?.id, key.id);
            await storage.erasure.eraseUser('u1', T0 + 10);
            assert.deepEqual(await second.keys.findApiKeysByDigests([key.digest]), [undefined]);
          });
        });
      });
    });

    describe('the last call of each enabled endpoint', () => {
      test('each enabled endpoint gets one user.erased event, due now; a disabled one goes at once', async () => {
        await withStore(options, async (storage) => {
          const enabled = await addEndpoint(storage, 'u1', { name: 'my shop' });
          const disabled = await addEndpoint(storage, 'u1');
          // A pending change, then the second endpoint disabled by a 410.
          await storage.writes.upsertMeals('u1', [meal('a')], T0);
          const pending = await storage.webhooks.claimDueWebhookEvents(T0, LEASE_MS, 10);
          const ofDisabled = pending.find((event) => event.endpointId === disabled.id);
          assert.ok(ofDisabled !== undefined);
          await storage.webhooks.recordWebhookAttempt(ofDisabled, attemptOf(ofDisabled, T0, 410), { kind: 'disable' });

          assert.deepEqual(await storage.erasure.eraseUser('u1', T0 + 100), { meals: 1, keys: 0, webhooks: 2 });

          assert.equal(await storage.webhooks.findWebhook(enabled.id), undefined, 'out of every door');
          assert.equal(await storage.webhooks.findWebhook(disabled.id), undefined);
          assert.deepEqual(await storage.webhooks.listWebhookAttempts(disabled.id), []);
          const [event, ...more] = await storage.webhooks.claimDueWebhookEvents(T0 + 100, LEASE_MS, 10);
          assert.deepEqual(more, [], 'the pending meals.changed went with the user');
          assert.ok(event !== undefined);
          assert.equal(event.endpointId, enabled.id);
          assert.equal(event.type, 'user.erased');
          assert.equal(event.userId, 'u1');
          assert.equal(event.erased, true);
          assert.equal(event.createdAt, T0 + 100);
          assert.deepEqual(event.secrets, [enabled.secret]);
        });
      });

      test('the id used again reaches no erased endpoint: its changes go to its own endpoints only', async () => {
        await withStore(options, async (storage) => {
          await addEndpoint(storage, 'u1');
          await storage.erasure.eraseUser('u1', T0);
          const fresh = await addEndpoint(storage, 'u1');
          await storage.writes.upsertMeals('u1', [meal('new life')], T0 + 10);
          const events = await storage.webhooks.claimDueWebhookEvents(T0 + 10, LEASE_MS, 10);
          assert.deepEqual(events.map((event) => [event.type, event.endpointId === fresh.id]).sort(), [
            ['meals.changed', true],
            ['user.erased', false],
          ]);
          // The new life's five endpoints: the erased one takes no place among them.
          for (let i = 1; i < 5; i++) await addEndpoint(storage, 'u1');
          assert.equal((await storage.webhooks.listWebhooks('u1')).length, 5);
        });
      });

      test('once the call is delivered the endpoint is gone, its events and attempts with it', async () => {
        await withStore(options, async (storage) => {
          await addEndpoint(storage, 'u1');
          await storage.erasure.eraseUser('u1', T0);
          const [event] = await storage.webhooks.claimDueWebhookEvents(T0, LEASE_MS, 10);
          assert.ok(event !== undefined);
          // A failed try first: retried, the endpoint kept.
          const retry = erasedEndpointFate(event, retryAt(T0 + 5_000));
          assert.deepEqual(retry, retryAt(T0 + 5_000));
          await storage.webhooks.recordWebhookAttempt(event, attemptOf(event, T0, 500), retry);
          const [again] = await storage.webhooks.claimDueWebhookEvents(T0 + 5_000, LEASE_MS, 10);
          assert.ok(again !== undefined);
          assert.equal(again.eventId, event.eventId, 'the same webhook-id on every retry');
          const fate = erasedEndpointFate(again, { kind: 'delivered' });
          assert.deepEqual(fate, { kind: 'forget' });
          await storage.webhooks.recordWebhookAttempt(again, attemptOf(again, T0 + 5_000), fate);
          assert.deepEqual(await storage.webhooks.webhookBacklog(), { pending: 0, oldestCreatedAt: undefined });
          assert.deepEqual(await storage.webhooks.listWebhookAttempts(event.endpointId), []);
          assert.equal(await storage.webhooks.nextWebhookDueAt(), undefined);
        });
      });
    });

    describe('the same id used again', () => {
      // 3 000 meals in one write take 3 000 ms of the clock: it runs ahead of the wall clock,
      // so a new life's first meal at "now" would fall before the former life's last position.
      const AHEAD = 3_000;
      const manyMeals = Array.from({ length: AHEAD }, (_, i) => meal(`old-${String(i).padStart(4, '0')}`));

      for (const [door, write] of [
        ['a batch', (storage: Storage) => storage.writes.upsertMeals('u1', [meal('new')], T0 + 50)],
        ['a single save', (storage: Storage) => storage.writes.saveMeal('u1', meal('new'), T0 + 50)],
        ['a delete with a version', (storage: Storage) => storage.writes.deleteMeal('u1', 'new', T0 + 50, 7)],
      ] as const) {
        test(`starts empty, after every position of its former life (${door})`, async () => {
          await withStore(options, async (storage) => {
            await storage.writes.upsertMeals('u1', manyMeals, T0);
            const last = (await feed(storage, { userId: 'u1', limit: AHEAD + 1 })).last;
            assert.ok(last !== undefined && last.modifiedAt >= T0 + AHEAD - 1, 'the clock ran ahead');
            await storage.erasure.eraseUser('u1', T0 + 40);

            await write(storage);
            const fromOldCursor = await feed(storage, {
              userId: 'u1',
              includeDeleted: true,
              after: last,
            });
            assert.equal(fromOldCursor.count, 1, 'the former life’s cursor starts over: the new life whole');
            const whole = await feed(storage, { userId: 'u1', includeDeleted: true });
            assert.equal(whole.count, 1, 'nothing of the former life');
            assert.ok((whole.last?.modifiedAt ?? 0) > last.modifiedAt);
          });
        });
      }
    });
  });
}
