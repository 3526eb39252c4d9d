import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { type MealPageBody, OLD } from '../http/http-expect.js';
import { cliJson, createWebhookByCli, runCli } from '../support/cli.js';
import { pgbouncerSkipReason, startPgBouncer, type TestPgBouncer } from '../support/pgbouncer.js';
import { newPostgresDatabase, postgresSkipReason, type TestPostgresStore } from '../support/postgres.js';
import { makeMeal, newUserId, request, startTestServer, type TestServer } from '../support/server.js';
import { startTrustedReceiver, type TrustedReceiver } from '../support/trusted-receiver.js';

// Everything through a transaction-pooling PgBouncer (docs/operations.md#behind-pgbouncer), two
// server connections per database so that a client's transactions change server connection:
// an instance without --direct-db finds that its signals do not arrive, says so once and polls;
// one with --direct-db listens on PostgreSQL itself. Long polls are answered within 1 s of a
// commit and webhooks sent within 2 s on both, every command works through the pooler, and no
// statement fails for a name prepared on another server connection.
const skip = (await postgresSkipReason()) ?? pgbouncerSkipReason();
const WITHIN_MS = 1_000;
const WEBHOOK_WITHIN_MS = 2_000;
const FALLBACK_LINE = 'change signals do not arrive';

describe('behind a transaction-pooling PgBouncer', { skip: skip ?? false }, () => {
  let bouncer: TestPgBouncer;
  let store: TestPostgresStore;
  let pooled: string;
  let receiver: TrustedReceiver;
  /** Without --direct-db (it polls), and with it (it listens on PostgreSQL itself). */
  let polling: TestServer;
  let listening: TestServer | undefined;
  let startListening: () => Promise<TestServer>;

  before(async () => {
    [bouncer, store] = await Promise.all([startPgBouncer({ poolSize: 2 }), newPostgresDatabase('bouncer')]);
    pooled = bouncer.through(store.url);
    receiver = await startTrustedReceiver((response) => response.writeHead(204).end());
    const webhookArgs = receiver.serveArgs;
    // The store is made by several processes at once, each migrating through the pooler.
    const made = await Promise.all(
      Array.from({ length: 4 }, (_, i) => runCli(['keys', 'create', '--user', `first${i}`, '--db', pooled, '--json'])),
    );
    for (const run of made) assert.equal(run.code, 0, run.stderr);
    // Alone at first: the webhook test needs the polling instance to be the one that sends.
    polling = await startTestServer({ db: pooled, extraArgs: webhookArgs });
    startListening = async () => {
      listening ??= await startTestServer({ db: pooled, extraArgs: [...webhookArgs, '--direct-db', store.url] });
      return listening;
    };
  });

  after(async () => {
    await Promise.all([polling?.stop(), listening?.stop()]);
    await receiver?.close();
    await store?.remove();
    await bouncer?.close();
  });

  test('migrations run by several processes at once through the pooler applied each version once', async () => {
    const sql = postgres(store.url, { max: 1, onnotice: () => undefined });
    try {
      const rows = await sql<{ version: number }[]>`SELECT version FROM schema_migrations ORDER BY version`;
      const versions = rows.map((row) => Number(row.version));
      assert.deepEqual(
        versions,
        versions.map((_, i) => i + 1),
      );
      assert.ok(versions.includes(7), 'the change sequence is there');
    } finally {
      await sql.end();
    }
  });

  test('an instance that polls sends webhooks within 2 s of a commit through the pooler, and a test call as well', async () => {
    const userId = newUserId('bncwh');
    const { id } = await createWebhookByCli<{ id: string }>(pooled, userId, receiver.url);
    const callsOf = (type: string) =>
      receiver.calls.filter((call) => call.body.includes(userId) && call.body.includes(`"${type}"`));
    const within = async (type: string, since: number) => {
      while (callsOf(type).length === 0 && performance.now() - since < 10_000) await sleep(20);
      return performance.now() - since;
    };
    await polling.importMeals(userId, [makeMeal()]);
    const changedMs = await within('meals.changed', performance.now());
    assert.equal(callsOf('meals.changed').length, 1);
    assert.ok(changedMs <= WEBHOOK_WITHIN_MS, `sent ${Math.round(changedMs)} ms after the import`);
    await cliJson(['webhooks', 'test', id, '--db', pooled]);
    const testMs = await within('webhook.test', performance.now());
    assert.equal(callsOf('webhook.test').length, 1);
    assert.ok(testMs <= WEBHOOK_WITHIN_MS, `test call sent ${Math.round(testMs)} ms after it was queued`);
  });

  test('the instance without --direct-db says once that its signals do not arrive; the one with it does not', async () => {
    const listening = await startListening();
    const lines = polling.logs().split('\n');
    const fallback = lines.filter((line) => line.includes(FALLBACK_LINE));
    assert.equal(fallback.length, 1, polling.logs());
    assert.match(fallback[0] ?? '', /"level":40/);
    assert.match(fallback[0] ?? '', /--direct-db/);
    assert.ok(!listening.logs().includes(FALLBACK_LINE), listening.logs());
    assert.match(listening.logs(), /LISTEN on the --direct-db connection/);
  });

  test('requests held by both instances are answered within 1 s of a meals import run through the pooler', async () => {
    const listening = await startListening();
    const held = (server: TestServer, key: string) =>
      request(server, { path: `/v1/meals?lastModifiedSince=${OLD}&wait=20`, key }).then((response) => ({
        response,
        at: performance.now(),
      }));
    for (let round = 0; round < 2; round += 1) {
      const userId = newUserId('bnc');
      const [{ key: keyA }, { key: keyB }] = await Promise.all([
        polling.createKey(userId),
        listening.createKey(userId),
      ]);
      const waiting = [held(polling, keyA), held(listening, keyB)];
      await sleep(1_000);
      const meal = makeMeal();
      await polling.importMeals(userId, [meal]);
      const importedAt = performance.now();
      for (const answer of await Promise.all(waiting)) {
        assert.equal(answer.response.status, 200, answer.response.text);
        const ids = (answer.response.json as MealPageBody).meals.map((m) => m.id);
        assert.deepEqual(ids, [meal.id]);
        assert.ok(answer.at - importedAt <= WITHIN_MS, `answered ${Math.round(answer.at - importedAt)} ms after`);
      }
    }
  });

  test('with --workers 2 and no --direct-db, each process says so once and a held request is answered within 1 s', async () => {
    const fleet = await startTestServer({ db: pooled, workers: 2 });
    try {
      const userId = newUserId('bncw');
      const { key } = await fleet.createKey(userId);
      const waiting = request(fleet, { path: `/v1/meals?lastModifiedSince=${OLD}&wait=20`, key }).then((response) => ({
        response,
        at: performance.now(),
      }));
      await sleep(1_000);
      const meal = makeMeal();
      await fleet.importMeals(userId, [meal]);
      const importedAt = performance.now();
      const answer = await waiting;
      assert.equal(answer.response.status, 200, answer.response.text);
      assert.deepEqual(
        (answer.response.json as MealPageBody).meals.map((m) => m.id),
        [meal.id],
      );
      assert.ok(answer.at - importedAt <= WITHIN_MS, `answered ${Math.round(answer.at - importedAt)} ms after`);
      // The primary (it sends the webhooks) and each worker check for themselves.
      assert.equal(fleet.logs().split(FALLBACK_LINE).length - 1, 3, fleet.logs());
    } finally {
      await fleet.stop();
    }
  });

  test('many requests at once on both instances, and imports beside them, are all answered', async () => {
    const listening = await startListening();
    const users = Array.from({ length: 8 }, () => newUserId('bncc'));
    const keys = await Promise.all(users.map((userId, i) => (i % 2 === 0 ? polling : listening).createKey(userId)));
    const imports = users.map((userId) => polling.importMeals(userId, [makeMeal(), makeMeal()]));
    // Enough to switch the pooler's two server connections under every reader many times; not so
    // many that a loaded machine queues them past the store's 5 s deadline (a 503 is then right).
    const reads = Array.from({ length: 80 }, (_, i) =>
      request(i % 2 === 0 ? polling : listening, {
        path: `/v1/meals?lastModifiedSince=${OLD}&limit=${1 + (i % 5)}`,
        key: keys[i % keys.length]?.key ?? '',
      }),
    );
    const answers = await Promise.all(reads);
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    for (const done of await Promise.all(imports)) assert.equal(done.imported, 2);
    assert.equal(polling.child.exitCode, null);
    assert.equal(listening.child.exitCode, null);
  });
});
