import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type MealPageBody, OLD } from '../http/http-expect.js';
import { cliJson } from '../support/cli.js';
import { newPostgresDatabase, postgresSkipReason, TEST_PG_URL, type TestPostgresStore } from '../support/postgres.js';
import { makeMeal, newUserId, request, startTestServer, type TestServer } from '../support/server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

// Long poll across instances on one PostgreSQL (docs/api.md#changes-as-they-happen-wait): a request
// held by one instance is answered within 1 s of a change committed by another process, through
// that instance's LISTEN connection; when that connection is cut, the change reaches the waiter
// once it is back. Instance B reaches PostgreSQL through a TCP proxy of the test's own.
const skip = await postgresSkipReason();
const WITHIN_MS = 1_000;

describe('long poll on PostgreSQL, two instances', { skip: skip ?? false }, () => {
  let store: TestPostgresStore;
  let proxy: TcpProxy;
  let a: TestServer;
  let b: TestServer;

  before(async () => {
    store = await newPostgresDatabase('longpoll');
    const pg = new URL(TEST_PG_URL);
    proxy = await startTcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
    const through = new URL(store.url);
    through.hostname = proxy.host;
    through.port = String(proxy.port);
    [a, b] = await Promise.all([startTestServer({ db: store.url }), startTestServer({ db: through.href })]);
  });

  after(async () => {
    proxy?.restore();
    await Promise.all([a?.stop(), b?.stop()]);
    await proxy?.close();
    await store?.remove();
  });

  /** `meals import` in a process of its own, straight to PostgreSQL; performance.now() once it exited. */
  async function importElsewhere(userId: string, meals: readonly object[]): Promise<number> {
    await a.importMeals(userId, meals);
    return performance.now();
  }

  function held(server: TestServer, key: string, query = `lastModifiedSince=${OLD}&wait=60`) {
    return request(server, { path: `/v1/meals?${query}`, key }).then((response) => ({
      response,
      at: performance.now(),
    }));
  }

  test('requests held by both instances are answered within 1 s of a meals import in another process', async () => {
    const userId = newUserId('pglp');
    const [{ key: keyA }, { key: keyB }] = await Promise.all([a.createKey(userId), a.createKey(userId)]);
    const onA = held(a, keyA);
    const onB = held(b, keyB);
    await sleep(1_000);
    const meal = makeMeal();
    const importedAt = await importElsewhere(userId, [meal]);
    for (const answer of await Promise.all([onA, onB])) {
      assert.equal(answer.response.status, 200, answer.response.text);
      assert.deepEqual(
        (answer.response.json as MealPageBody).meals.map((m) => m.id),
        [meal.id],
      );
      assert.ok(answer.at - importedAt <= WITHIN_MS, `answered ${Math.round(answer.at - importedAt)} ms after`);
    }
  });

  test("a change committed while an instance's LISTEN connection is cut reaches its held request once the connection is back", async () => {
    const userId = newUserId('pgcut');
    const { key } = await cliJson<{ key: string }>(['keys', 'create', '--user', userId, '--db', store.url]);
    const waiting = held(b, key, `lastModifiedSince=${OLD}&wait=60`);
    await sleep(1_000);
    proxy.cut('refuse');
    try {
      const meal = makeMeal();
      await importElsewhere(userId, [meal]);
      const early = await Promise.race([waiting.then(() => 'answered'), sleep(1_500).then(() => 'still held')]);
      assert.equal(early, 'still held', 'nothing reaches instance B while its connections are cut');
      const restoredAt = performance.now();
      proxy.restore();
      const answer = await waiting;
      assert.equal(answer.response.status, 200, answer.response.text);
      assert.deepEqual(
        (answer.response.json as MealPageBody).meals.map((m) => m.id),
        [meal.id],
      );
      assert.ok(answer.at - restoredAt <= 3_000, `answered ${Math.round(answer.at - restoredAt)} ms after the restore`);
    } finally {
      proxy.restore();
    }
  });
});
