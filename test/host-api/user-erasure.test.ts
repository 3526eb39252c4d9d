import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { openMealHost } from '../../src/meal-host/index.js';
import { cliJson } from '../support/cli.js';
import { type HostApiServer, hostCall, startHostApiServer } from '../support/host-api.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { newPostgresDatabase, postgresSkipReason, type TestPostgresStore } from '../support/postgres.js';
import { getMeals, makeMeal, newUserId, type ServedApp, type StartOptions } from '../support/server.js';
import { startTrustedReceiver, type TrustedReceiver } from '../support/trusted-receiver.js';
import { waitFor } from '../support/wait-for.js';

// Erasing a user (docs/host-api.md#erasing-a-user) as the diet app's back end does it, over real
// HTTPS, on the embedded default and on two PostgreSQL instances: the counts, keys refused on
// every instance within 1 s, one signed user.erased call per enabled endpoint, verified with the
// Standard Webhooks library, then the endpoint gone; the id used again starts empty.
const pgSkip = await postgresSkipReason();

interface Erased {
  readonly userId: string;
  readonly erased: { readonly meals: number; readonly keys: number; readonly webhooks: number };
}

const SINCE = { lastModifiedSince: '1970-01-01T00:00:00Z' };

const userPath = (userId: string) => `/host/v1/users/${encodeURIComponent(userId)}`;

async function refusedWithin(server: ServedApp, key: string, ms: number): Promise<number> {
  const started = performance.now();
  let status = (await getMeals(server, key, SINCE)).status;
  while (status !== 401 && performance.now() - started < ms) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = (await getMeals(server, key, SINCE)).status;
  }
  return status;
}

function erasureRules(
  name: string,
  skip: string | undefined,
  startStore: () => Promise<StartOptions & { remove?: () => Promise<void> }>,
) {
  describe(`erasing a user over the host API (${name})`, { skip: skip ?? false }, () => {
    let receiver: TrustedReceiver;
    let first: HostApiServer;
    let second: HostApiServer;
    let remove: (() => Promise<void>) | undefined;

    before(async () => {
      receiver = await startTrustedReceiver((response) => response.writeHead(204).end());
      const { remove: removeStore, ...store } = await startStore();
      remove = removeStore;
      const options = { ...store, extraArgs: [...receiver.serveArgs] };
      first = await startHostApiServer(options, startInProcessServer);
      // On SQLite a second instance is a second process on the same file, as `--workers` makes.
      second = await startHostApiServer({ ...options, db: first.db }, startInProcessServer);
    });

    after(async () => {
      await Promise.all([first?.stop(), second?.stop()]);
      await receiver?.close();
      await remove?.();
    });

    test('everything goes, counted; keys refused on both instances within 1 s; a retry answers zeros', async () => {
      const userId = newUserId('leaver');
      const other = newUserId('stayer');
      await first.importMeals(userId, [makeMeal(), makeMeal(), makeMeal()]);
      await first.importMeals(other, [makeMeal()]);
      const mine = await first.createKey(userId);
      const theirs = await first.createKey(other);
      assert.equal((await getMeals(second, mine.key, SINCE)).status, 200, 'the key works first');

      const res = await hostCall(first, { method: 'DELETE', path: userPath(userId) });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json, { userId, erased: { meals: 3, keys: 1, webhooks: 0 } } satisfies Erased);
      assert.equal(await refusedWithin(first, mine.key, 1_000), 401);
      assert.equal(await refusedWithin(second, mine.key, 1_000), 401);

      const kept = await getMeals(second, theirs.key, SINCE);
      assert.equal(kept.status, 200);
      assert.equal((kept.json as { meals: unknown[] }).meals.length, 1, 'another user keeps everything');
      const again = await hostCall(second, { method: 'DELETE', path: userPath(userId) });
      assert.deepEqual(again.json, { userId, erased: { meals: 0, keys: 0, webhooks: 0 } });
      assert.deepEqual((await hostCall(first, { path: `${userPath(userId)}/keys` })).json, []);
      assert.deepEqual((await hostCall(first, { path: `${userPath(userId)}/webhooks` })).json, []);
    });

    test('each enabled endpoint gets one signed user.erased call, then is gone with its secret', async () => {
      const userId = newUserId('hooked');
      const made = await hostCall(first, {
        method: 'POST',
        path: `${userPath(userId)}/webhooks`,
        json: { url: receiver.url, name: 'coach' },
      });
      assert.equal(made.status, 201, made.text);
      const endpoint = made.json as { id: string; secret: string };
      await first.importMeals(userId, [makeMeal()]);
      const erasedAt = Date.now();

      const res = await hostCall(second, { method: 'DELETE', path: userPath(userId) });
      assert.deepEqual((res.json as Erased).erased, { meals: 1, keys: 0, webhooks: 1 });
      const erasedCall = () =>
        receiver.calls.find((received) => {
          const body = JSON.parse(received.body) as { type: string; data: { userId: string } };
          return body.type === 'user.erased' && body.data.userId === userId;
        });
      await waitFor('the user.erased call', () => erasedCall() !== undefined, 5_000);
      const call = erasedCall();
      assert.ok(call !== undefined);
      const event = new Webhook(endpoint.secret).verify(call.body, {
        'webhook-id': String(call.headers['webhook-id']),
        'webhook-timestamp': String(call.headers['webhook-timestamp']),
        'webhook-signature': String(call.headers['webhook-signature']),
      }) as { type: string; timestamp: string; data: object };
      assert.deepEqual(Object.keys(event), ['type', 'timestamp', 'data']);
      assert.deepEqual(event.data, { userId });
      assert.ok(Date.parse(event.timestamp) >= erasedAt - 1_000);

      for (const path of [`/host/v1/webhooks/${endpoint.id}/attempts`, `/host/v1/webhooks/${endpoint.id}`]) {
        assert.equal(
          (await hostCall(first, { path, method: path.endsWith('attempts') ? 'GET' : 'DELETE' })).status,
          404,
        );
      }
      // Delivered: the endpoint is removed, and nothing more is sent to it.
      const calls = receiver.calls.length;
      await first.importMeals(userId, [makeMeal()]);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const later = receiver.calls
        .slice(calls)
        .map((received) => JSON.parse(received.body) as { data: { userId: string } });
      assert.deepEqual(
        later.filter((body) => body.data.userId === userId),
        [],
        'the new life has no endpoint',
      );
    });

    test('the id used again starts empty: an old cursor starts over, never mixing the two lives', async () => {
      const userId = newUserId('reborn');
      const before = await first.createKey(userId);
      await first.importMeals(userId, [makeMeal(undefined, { title: 'former life' })]);
      const page = await getMeals(first, before.key, SINCE);
      const cursor = (page.json as { nextCursor: string }).nextCursor;
      assert.equal(typeof cursor, 'string');
      await hostCall(first, { method: 'DELETE', path: userPath(userId) });

      const after = await first.createKey(userId);
      await first.importMeals(userId, [makeMeal(undefined, { title: 'new life' })]);
      const fromCursor = await getMeals(second, after.key, { ...SINCE, cursor, includeDeleted: 'true' });
      assert.equal(fromCursor.status, 200, fromCursor.text);
      const titles = (fromCursor.json as { meals: { title: string }[] }).meals.map((meal) => meal.title);
      assert.deepEqual(titles, ['new life']);
      const whole = await getMeals(second, after.key, { ...SINCE, includeDeleted: 'true' });
      assert.deepEqual(
        (whole.json as { meals: { title: string }[] }).meals.map((meal) => meal.title),
        ['new life'],
      );
    });

    test('users erase and meal-export/host answer as the host API does', async () => {
      const userId = newUserId('cli');
      await first.importMeals(userId, [makeMeal(), makeMeal()]);
      await first.createKey(userId);
      const erased = await cliJson<Erased>(['users', 'erase', '--user', userId, '--db', first.db, '--json']);
      assert.deepEqual(erased, { userId, erased: { meals: 2, keys: 1, webhooks: 0 } });
      const retry = await cliJson<Erased>(['users', 'erase', '--user', userId, '--db', first.db, '--json']);
      assert.deepEqual(retry.erased, { meals: 0, keys: 0, webhooks: 0 });

      const host = await openMealHost(first.db);
      try {
        await host.upsertMeals(userId, [{ id: `${userId}-m`, type: 'lunch', date: '2026-11-25T12:30:00Z' }]);
        await host.createWebhook(userId, 'https://hooks.example.com/erased');
        assert.deepEqual(await host.eraseUser(userId), { meals: 1, keys: 0, webhooks: 1 });
        assert.deepEqual(await host.listWebhooks(userId), []);
        await assert.rejects(host.eraseUser(''), { name: 'MealHostError', code: 'invalid_user_id' });
      } finally {
        await host.close();
      }
    });
  });
}

erasureRules('SQLite', undefined, async () => ({}));

let pgStore: TestPostgresStore | undefined;
erasureRules('PostgreSQL', pgSkip, async () => {
  pgStore = await newPostgresDatabase('erasure');
  return { db: pgStore.url, remove: () => pgStore?.remove() ?? Promise.resolve() };
});
