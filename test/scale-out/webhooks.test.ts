import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { createWebhookByCli } from '../support/cli.js';
import { newPostgresDatabase, postgresSkipReason, type TestPostgresStore } from '../support/postgres.js';
import { makeMeal, newUserId, startTestServer, type TestServer } from '../support/server.js';
import { startTrustedReceiver, type TrustedReceiver } from '../support/trusted-receiver.js';
import type { Answer, ReceivedCall } from '../webhooks/receiver.js';

// Webhooks across instances on one PostgreSQL (docs/operations.md#long-polls-and-webhooks): exactly
// one instance sends each attempt, one event per endpoint is in flight, and an instance killed
// while it sends leaves the event to another once its lease ends, with the same webhook-id.
const skip = await postgresSkipReason();
/** The lease a sender holds on a claimed event (webhooks/webhook-dispatcher.ts). */
const LEASE_MS = 30_000;

interface Event {
  readonly type: string;
  readonly data: { readonly userId: string; readonly from: string; readonly through: string };
}

describe('webhooks on PostgreSQL, two instances', { skip: skip ?? false }, () => {
  let store: TestPostgresStore;
  let receiver: TrustedReceiver;
  let answer: Answer = (response) => response.writeHead(204).end();
  const servers: TestServer[] = [];

  before(async () => {
    store = await newPostgresDatabase('webhooks');
    receiver = await startTrustedReceiver((response, call) => answer(response, call));
  });

  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await receiver.close();
    await store.remove();
  });

  async function start(): Promise<TestServer> {
    const server = await startTestServer({
      db: store.url,
      extraArgs: receiver.serveArgs,
    });
    servers.push(server);
    return server;
  }

  const callsOf = (userId: string): ReceivedCall[] =>
    receiver.calls.filter((call) => (JSON.parse(call.body) as Event).data.userId === userId);

  test('each event is received exactly once, one at a time per endpoint, whichever instance sends it', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    assert.ok(a && b);
    const userId = newUserId('pgwh');
    const { secret } = await createWebhookByCli<{ secret: string }>(store.url, userId, receiver.url);
    let inFlight = 0;
    let mostInFlight = 0;
    answer = (response) => {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        response.writeHead(204).end();
      }, 300);
    };
    try {
      for (let i = 0; i < 6; i += 1) {
        await a.importMeals(userId, [makeMeal()]);
        await sleep(150);
      }
      await sleep(3_000);
    } finally {
      answer = (response) => response.writeHead(204).end();
    }
    const calls = callsOf(userId);
    const ids = calls.map((call) => String(call.headers['webhook-id']));
    assert.ok(calls.length >= 1);
    assert.equal(new Set(ids).size, ids.length, `no event twice: ${ids.join(' ')}`);
    assert.equal(mostInFlight, 1, 'one call at a time to the endpoint');
    const events = calls.map(
      (call) =>
        new Webhook(secret).verify(call.body, {
          'webhook-id': String(call.headers['webhook-id']),
          'webhook-timestamp': String(call.headers['webhook-timestamp']),
          'webhook-signature': String(call.headers['webhook-signature']),
        }) as Event,
    );
    for (let i = 1; i < events.length; i += 1) {
      assert.ok(String(events[i]?.data.from) > String(events[i - 1]?.data.through), 'in order');
    }
  });

  test(
    'an instance killed (kill -9) while it sends leaves the event to the other, sent again after the lease with the same webhook-id',
    { timeout: 120_000 },
    async () => {
      const userId = newUserId('pgkill');
      await createWebhookByCli(store.url, userId, receiver.url);
      // Only `doomed` runs while the event is first claimed: it holds the call, unanswered.
      for (const server of servers.splice(0)) await server.stop();
      const doomed = await start();
      // Never answered: the sender is killed while it waits.
      answer = () => undefined;
      await doomed.importMeals(userId, [makeMeal()]);
      const deadline = performance.now() + 5_000;
      while (callsOf(userId).length === 0 && performance.now() < deadline) await sleep(50);
      assert.equal(callsOf(userId).length, 1, 'the doomed instance sent the event');
      const claimedAt = performance.now();
      doomed.child.kill('SIGKILL');
      servers.splice(servers.indexOf(doomed), 1);
      answer = (response) => response.writeHead(204).end();
      await start();
      while (callsOf(userId).length < 2 && performance.now() - claimedAt < LEASE_MS + 15_000) await sleep(100);
      const [first, second] = callsOf(userId);
      assert.ok(second, 'sent again by the other instance');
      assert.equal(second.headers['webhook-id'], first?.headers['webhook-id']);
      const waited = performance.now() - claimedAt;
      assert.ok(waited >= LEASE_MS - 2_000, `not before the lease ended: ${Math.round(waited)} ms`);
    },
  );
});
