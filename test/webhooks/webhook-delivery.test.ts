import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { mealsChangedEventSchema, webhookTestEventSchema } from '../../src/http/schemas.js';
import { schemaProblems } from '../http/json-schema-check.js';
import { cliJson, runCli } from '../support/cli.js';
import { sampleSum, scrape } from '../support/metrics.js';
import { makeTempDir } from '../support/project.js';
import { makeMeal, newUserId, startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';
import {
  type Answer,
  createLoopbackEndpoint,
  makeCertificate,
  type ReceivedCall,
  type Receiver,
  startReceiver,
} from './receiver.js';

/**
 * Webhooks end to end (docs/webhooks.md#the-call): `serve` calls a real HTTPS receiver on
 * 127.0.0.1 when a user's meals change, signed as Standard Webhooks says (checked by the
 * `standardwebhooks` library, not by our code), coalesced, retried, disabled on 410.
 */

interface Created {
  readonly id: string;
  readonly secret: string;
}

interface MealsChanged {
  readonly type: string;
  readonly timestamp: string;
  readonly data: { readonly userId: string; readonly from?: string; readonly through?: string };
}

function verified(secret: string, call: ReceivedCall): MealsChanged {
  const headers = {
    'webhook-id': String(call.headers['webhook-id']),
    'webhook-timestamp': String(call.headers['webhook-timestamp']),
    'webhook-signature': String(call.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(call.body, headers) as MealsChanged;
}

describe('webhooks on the embedded default', () => {
  let certificateDir: { dir: string; remove: () => void };
  let server: TestServer;
  let answer: Answer = (response) => response.writeHead(204).end();
  let receiver: Receiver;

  before(async () => {
    const certificate = await makeCertificate();
    certificateDir = makeTempDir('webhook-ca');
    const caFile = path.join(certificateDir.dir, 'receiver.pem');
    writeFileSync(caFile, certificate.cert);
    receiver = await startReceiver(certificate, (response, call) => answer(response, call));
    server = await startTestServer({ adminPort: 0, extraArgs: ['--webhook-allow-private', '--webhook-ca', caFile] });
  });

  after(async () => {
    assert.equal(await server.stop(), 0);
    await receiver.close();
    certificateDir.remove();
  });

  async function createEndpoint(userId: string, url = receiver.url): Promise<Created> {
    return cliJson<Created>(['webhooks', 'create', '--user', userId, '--url', url, '--db', server.db]);
  }
  const callsOf = (userId: string) =>
    receiver.calls.filter((call) => (JSON.parse(call.body) as MealsChanged).data.userId === userId);

  test('an import is announced within 2 s by one signed meals.changed call, from its first change through its last', async () => {
    const userId = newUserId('wh');
    const { secret } = await createEndpoint(userId);
    const meals = [makeMeal(), makeMeal(), makeMeal()];
    const started = performance.now();
    await server.importMeals(userId, meals);
    await waitFor('a call', () => callsOf(userId).length === 1, 2_000 + (performance.now() - started));
    const [call] = callsOf(userId);
    assert.ok(call);
    assert.equal(call.method, 'POST');
    assert.equal(call.headers['content-type'], 'application/json');
    assert.match(String(call.headers['user-agent']), /^meal-export-webhooks\/\d+\.\d+\.\d+/);
    assert.match(String(call.headers['webhook-id']), /^msg_/);
    const event = verified(secret, call);
    assert.deepEqual(schemaProblems(event, mealsChangedEventSchema, {}), []);
    assert.deepEqual(Object.keys(event), ['type', 'timestamp', 'data']);
    assert.deepEqual(Object.keys(event.data), ['userId', 'from', 'through']);
    const exported = await runCli(['meals', 'export', '--user', userId, '--format', 'jsonl', '--db', server.db]);
    const modified = exported.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { modifiedAt: string }).modifiedAt);
    assert.equal(event.data.from, modified[0]);
    assert.equal(event.data.through, modified[2]);
    await sleep(1_000);
    assert.equal(callsOf(userId).length, 1, 'one event for one import');
    assert.doesNotMatch(server.logs(), new RegExp(secret.slice(6, 30).replace(/[+/]/g, '.')), 'no secret in the logs');
  });

  test('a burst of imports while a call is in flight is coalesced into the next call, in order, covering every change', async () => {
    const userId = newUserId('whburst');
    const { secret } = await createEndpoint(userId);
    // The first call is held unanswered until all eight imports are committed: however long
    // they take on a busy machine, they all happen while it is in flight.
    const held: ServerResponse[] = [];
    answer = (response) => {
      held.push(response);
    };
    try {
      await server.importMeals(userId, [makeMeal()]);
      await waitFor('the first call', () => callsOf(userId).length === 1, 3_000);
      await Promise.all(Array.from({ length: 8 }, () => server.importMeals(userId, [makeMeal()])));
    } finally {
      answer = (response) => response.writeHead(204).end();
      for (const response of held) response.writeHead(204).end();
    }
    await waitFor('the next call', () => callsOf(userId).length >= 2, 6_000);
    await sleep(1_500);
    const events = callsOf(userId).map((call) => verified(secret, call));
    assert.equal(events.length, 2, `${events.length} calls for 9 imports: the first, then one for the other eight`);
    for (let i = 1; i < events.length; i += 1) {
      assert.ok(String(events[i]?.data.from) > String(events[i - 1]?.data.through), 'in order, no overlap');
    }
    const exported = await runCli(['meals', 'export', '--user', userId, '--format', 'jsonl', '--db', server.db]);
    const last = exported.stdout.trim().split('\n').at(-1) ?? '{}';
    assert.equal(events.at(-1)?.data.through, (JSON.parse(last) as { modifiedAt: string }).modifiedAt);
  });

  test('a 500 is retried about 5 s later with the same webhook-id; 410 disables the endpoint; enable delivers what is pending', async () => {
    const userId = newUserId('whretry');
    const endpoint = await createEndpoint(userId);
    let failures = 1;
    answer = (response, call) => {
      const mine = (JSON.parse(call.body) as MealsChanged).data.userId === userId;
      if (mine && failures > 0) {
        failures -= 1;
        response.writeHead(500).end();
      } else response.writeHead(204).end();
    };
    try {
      await server.importMeals(userId, [makeMeal()]);
      await waitFor('a retry', () => callsOf(userId).length === 2, 12_000);
      const [first, second] = callsOf(userId);
      assert.equal(first?.headers['webhook-id'], second?.headers['webhook-id']);
      const attempts = await cliJson<{ status: number | null; eventId: string }[]>([
        'webhooks',
        'attempts',
        endpoint.id,
        '--db',
        server.db,
      ]);
      assert.deepEqual(
        attempts.map((a) => a.status),
        [204, 500],
        'newest first',
      );

      answer = (response, call) =>
        response.writeHead((JSON.parse(call.body) as MealsChanged).data.userId === userId ? 410 : 204).end();
      await server.importMeals(userId, [makeMeal()]);
      await waitFor('the 410', () => callsOf(userId).length === 3, 3_000);
      await sleep(500);
      const [listed] = await cliJson<{ status: string }[]>(['webhooks', 'list', '--user', userId, '--db', server.db]);
      assert.equal(listed?.status, 'disabled');
      answer = (response) => response.writeHead(204).end();
      await server.importMeals(userId, [makeMeal()]);
      await sleep(2_500);
      assert.equal(callsOf(userId).length, 3, 'a disabled endpoint is not called');
      await cliJson(['webhooks', 'enable', endpoint.id, '--db', server.db]);
      // docs/webhooks.md#the-call: the event that was failing first, then what collected meanwhile.
      await waitFor('both pending events once enabled', () => callsOf(userId).length === 5, 3_000);
      const [, , refused, pending, collected] = callsOf(userId).map((call) => call.headers['webhook-id']);
      assert.equal(pending, refused, 'the failing event goes first, with its webhook-id');
      assert.notEqual(collected, refused, 'then one call for the changes collected while disabled');
    } finally {
      answer = (response) => response.writeHead(204).end();
    }
  });

  test('webhooks test sends a signed webhook.test call; after rotate-secret both secrets verify', async () => {
    const userId = newUserId('whtest');
    const endpoint = await createEndpoint(userId);
    await cliJson(['webhooks', 'test', endpoint.id, '--db', server.db]);
    await waitFor('the test call', () => callsOf(userId).length === 1, 3_000);
    const [call] = callsOf(userId);
    assert.ok(call);
    const event = verified(endpoint.secret, call);
    assert.equal(event.type, 'webhook.test');
    assert.deepEqual(schemaProblems(event, webhookTestEventSchema, {}), []);

    const rotated = await cliJson<{ id: string; secret: string }>([
      'webhooks',
      'rotate-secret',
      endpoint.id,
      '--db',
      server.db,
    ]);
    await server.importMeals(userId, [makeMeal()]);
    await waitFor('a call after the rotation', () => callsOf(userId).length === 2, 3_000);
    const after = callsOf(userId)[1];
    assert.ok(after);
    assert.equal(verified(rotated.secret, after).type, 'meals.changed');
    assert.equal(verified(endpoint.secret, after).type, 'meals.changed');
  });

  test('/metrics counts the attempts by outcome, the events pending and the age of the oldest', async () => {
    const text = (await scrape(server.adminUrl)).text;
    assert.ok(sampleSum(text, 'meal_export_webhook_attempts_total', { outcome: 'delivered' }) >= 4);
    assert.ok(sampleSum(text, 'meal_export_webhook_attempts_total', { outcome: 'failed' }) >= 1);
    assert.ok(sampleSum(text, 'meal_export_webhook_attempts_total', { outcome: 'disabled' }) >= 1);
    assert.equal(sampleSum(text, 'meal_export_webhook_events_pending'), 0, 'everything was delivered');
    assert.equal(sampleSum(text, 'meal_export_webhook_oldest_pending_seconds'), 0);
  });
});

describe('webhooks without --webhook-allow-private', () => {
  test('a call to a loopback address is refused and recorded as refused_address; the receiver sees nothing', async () => {
    const certificate = await makeCertificate();
    const receiver = await startReceiver(certificate, (response) => response.writeHead(204).end());
    const server = await startTestServer();
    try {
      const userId = newUserId('whpriv');
      const endpointId = await createLoopbackEndpoint(receiver, userId, server.db);
      await server.importMeals(userId, [makeMeal()]);
      let attempts: { status: number | null; error: string | null }[] = [];
      const deadline = performance.now() + 4_000;
      while (attempts.length === 0 && performance.now() < deadline) {
        await sleep(200);
        attempts = await cliJson(['webhooks', 'attempts', endpointId, '--db', server.db]);
      }
      assert.deepEqual(
        attempts.map((a) => [a.status, a.error]),
        [[null, 'refused_address']],
      );
      assert.equal(receiver.calls.length, 0);
    } finally {
      await server.stop();
      await receiver.close();
    }
  });
});
