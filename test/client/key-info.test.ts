import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  createMealExportClient,
  type KeyInfo,
  type MealExportClient,
  MealExportAuthError,
  type WaitEvent,
} from '../../src/client/index.js';
import { generateApiKey } from '../../src/domain/api-key.js';
import { newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';

// client.keyInfo(): GET /v1/key through the SDK (docs/sdk.md#your-key-and-its-limits), against a
// server with the spec's 3 s interval, so that a wait for it would show.
let server: ServedApp;
let ca: string;
const clients: MealExportClient[] = [];

before(async () => {
  server = await startInProcessServer({ minIntervalMs: 3000, dailyLimit: 10 });
  ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
});

after(async () => {
  for (const client of clients) client.close();
  await server.stop();
});

function clientFor(apiKey: string, waits: WaitEvent[] = []): MealExportClient {
  const client = createMealExportClient({ baseUrl: server.url, apiKey, ca, onWait: (event) => waits.push(event) });
  clients.push(client);
  return client;
}

test('keyInfo() returns the typed body, instants as the API writes them, and waits for no interval', async () => {
  const userId = newUserId('sdk-key');
  const { id, key } = await server.createKey(userId, ['--name', 'backoffice']);
  const waits: WaitEvent[] = [];
  const client = clientFor(key, waits);
  const first: KeyInfo = await client.keyInfo();
  assert.deepEqual(Object.keys(first), ['ok', 'key', 'limits']);
  assert.equal(first.key.id, id);
  assert.equal(first.key.name, 'backoffice');
  assert.equal(first.key.userId, userId);
  assert.equal(first.key.expiresAt, null);
  assert.equal(typeof first.key.createdAt, 'string');
  assert.deepEqual([first.limits.daily, first.limits.usedToday, first.limits.minIntervalMs], [10, 0, 3000]);

  await client.listMeals({ lastModifiedSince: '2025-01-01' });
  const started = Date.now();
  const after = await client.keyInfo();
  assert.ok(Date.now() - started < 1500, 'keyInfo after listMeals does not wait for the interval');
  assert.equal(after.limits.usedToday, 1);
  assert.equal(after.limits.remainingToday, 9);
  assert.ok(Date.parse(after.limits.nextAcceptedAt) > Date.now(), 'the interval of that listMeals runs');
  assert.deepEqual(waits, [], 'no wait was needed');
});

test('keyInfo() does not delay the next listMeals: it is not counted', async () => {
  const { key } = await server.createKey(newUserId('sdk-key-free'));
  const waits: WaitEvent[] = [];
  const client = clientFor(key, waits);
  await client.keyInfo();
  await client.keyInfo();
  await client.listMeals({ lastModifiedSince: '2025-01-01' });
  assert.deepEqual(waits, [], 'the first listMeals goes at once after any number of keyInfo calls');
});

test('keyInfo() with a bad key throws MealExportAuthError invalid_api_key', async () => {
  const client = clientFor(generateApiKey());
  await assert.rejects(client.keyInfo(), (error: unknown) => {
    assert.ok(error instanceof MealExportAuthError);
    assert.equal(error.code, 'invalid_api_key');
    assert.match(error.message, /GET .*\/v1\/key/);
    return true;
  });
});
