import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import type { KeyDayRequests } from '../../src/domain/key-records.js';
import type { Storage } from '../../src/storage/storage.js';
import { getMeals, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';

/**
 * The daily request counts behind the app page's "today's quota use": a request counts once
 * accepted, so a 429 does not (docs/api.md#limits). Written every 5 s with last use.
 */
describe('accepted requests per key and day, as the server records them', () => {
  let server: ServedApp;
  let storage: Storage;

  before(async () => {
    server = await startInProcessServer({ minIntervalMs: 600_000 });
    storage = await openSqliteStorage(server.db);
  });

  after(async () => {
    await storage?.close();
    await server?.stop();
  });

  test('an accepted request counts for today and a 429 does not', async () => {
    const userId = newUserId('count');
    const { key } = await server.createKey(userId);
    assert.equal((await getMeals(server, key, { lastModifiedSince: '2025-01-01' })).status, 200);
    assert.equal((await getMeals(server, key, { lastModifiedSince: '2025-01-01' })).status, 429);
    assert.equal((await getMeals(server, key, { lastModifiedSince: 'bad' })).status, 429);
    const today = Math.floor(Date.now() / 86_400_000);
    let counts: KeyDayRequests[] = [];
    const deadline = Date.now() + 30_000;
    while (counts.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      counts = await storage.quota.listKeyRequests(userId, today - 1, today + 1);
    }
    assert.equal(counts.length, 1, 'one day, one key');
    assert.equal(counts[0]?.requests, 1);
    assert.ok(counts[0]?.day === today || counts[0]?.day === today - 1, 'the UTC day of the request');
    assert.notEqual((await storage.keys.listApiKeys(userId))[0]?.lastUsedAt, null);
  });
});
