import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeCertificate, type Receiver, startReceiver } from '../webhooks/receiver.js';
import { type HostApiServer, hostCall, hostRecord, mealPath, startHostApiServer } from '../support/host-api.js';
import { sampleSum, scrape, untilHeld } from '../support/metrics.js';
import { makeTempDir } from '../support/project.js';
import { newUserId, request } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';

// What a host API write tells the consumers: a held long poll and a webhook, woken by a change
// and never by an unchanged or stale save; and what it tells the operator: /metrics and the log.
let server: HostApiServer;
let receiver: Receiver;
let caDir: { dir: string; remove: () => void };

before(async () => {
  const certificate = await makeCertificate();
  caDir = makeTempDir('host-ca');
  const caFile = path.join(caDir.dir, 'ca.pem');
  writeFileSync(caFile, certificate.cert);
  receiver = await startReceiver(certificate, (response) => response.writeHead(204).end());
  server = await startHostApiServer({ adminPort: 0, extraArgs: ['--webhook-allow-private', '--webhook-ca', caFile] });
});

after(async () => {
  await server.stop();
  await receiver.close();
  caDir.remove();
});

describe('a host API write reaches the consumers', () => {
  test('a held long poll is woken by a PUT within 1 s, and not by an unchanged or a stale one', async () => {
    const userId = newUserId('poll');
    const path0 = mealPath(userId, 'm');
    const saved = (await hostCall(server, { method: 'PUT', path: path0, json: hostRecord({ sourceVersion: 2 }) }))
      .json as { modifiedAt: string };
    const { key } = await server.createKey(userId);
    const after1 = new Date(Date.parse(saved.modifiedAt) + 1).toISOString();
    const started = performance.now();
    const waiting = request(server, { path: `/v1/meals?lastModifiedSince=${after1}&wait=30`, key });
    await untilHeld(server.adminUrl, 1);
    await hostCall(server, { method: 'PUT', path: path0, json: hostRecord({ sourceVersion: 3 }) });
    await hostCall(server, { method: 'PUT', path: path0, json: hostRecord({ title: 'old', sourceVersion: 1 }) });
    await sleep(1_500);
    assert.equal(sampleSum((await scrape(server.adminUrl)).text, 'meal_export_long_polls_held'), 1, 'still held');
    const changedAt = performance.now();
    await hostCall(server, { method: 'PUT', path: path0, json: hostRecord({ title: 'new', sourceVersion: 4 }) });
    const answer = await waiting;
    const answeredAt = performance.now();
    assert.equal(answer.status, 200, answer.text);
    const meals = (answer.json as { meals: Array<{ title: string }> }).meals;
    assert.deepEqual(
      meals.map((meal) => meal.title),
      ['new'],
    );
    assert.ok(answeredAt - changedAt < 1_000, `answered ${Math.round(answeredAt - changedAt)} ms after the PUT`);
    assert.ok(changedAt - started > 1_500, 'held through the unchanged and stale saves');
  });

  test('a webhook call is queued by a host API write, and none by an unchanged one', async () => {
    const userId = newUserId('hook');
    const created = await hostCall(server, {
      method: 'POST',
      path: `/host/v1/users/${userId}/webhooks`,
      json: { url: receiver.url },
    });
    assert.equal(created.status, 201, created.text);
    const calls = () => receiver.calls.filter((call) => call.body.includes(userId));
    await hostCall(server, { method: 'PUT', path: mealPath(userId, 'w'), json: hostRecord() });
    await waitFor('the webhook call', () => calls().length === 1, 5_000);
    assert.match(calls()[0]?.body ?? '', /"type":"meals\.changed"/);
    await hostCall(server, { method: 'PUT', path: mealPath(userId, 'w'), json: hostRecord() });
    await hostCall(server, { method: 'DELETE', path: `${mealPath(userId, 'w')}?sourceVersion=0` });
    await sleep(2_500);
    assert.equal(calls().length, 2, 'the delete was a change; the unchanged save was not');
  });

  test('/metrics counts the host API by route and status; the log names the token by its id, never the token', async () => {
    const userId = newUserId('metrics');
    await hostCall(server, { method: 'PUT', path: mealPath(userId, 'x'), json: hostRecord() });
    await hostCall(server, { path: mealPath(userId, 'nothing') });
    const text = (await scrape(server.adminUrl)).text;
    const route = 'PUT /host/v1/users/{userId}/meals/{mealId}';
    assert.ok(sampleSum(text, 'meal_export_host_api_requests_total', { route, status: '200' }) >= 1, text);
    const get = { route: 'GET /host/v1/users/{userId}/meals/{mealId}', status: '404' };
    assert.ok(sampleSum(text, 'meal_export_host_api_requests_total', get) >= 1);
    const logs = server.logs();
    assert.match(logs, new RegExp(`"token":"${server.tokenId}"`));
    assert.ok(!logs.includes(server.token), 'the token itself is never logged');
    assert.ok(!logs.includes(server.token.slice(4, 20)), 'nor a part of it');
  });
});
