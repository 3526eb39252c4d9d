import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { digestApiKey, displayPrefix, generateApiKey } from '../../src/domain/api-key.js';
import { randomId } from '../../src/domain/random-id.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { KeyDayUse, NewApiKey } from '../../src/domain/key-records.js';
import type { Storage } from '../../src/storage/storage.js';
import type { StorageBackend } from './storage.suite.js';

const T0 = Date.UTC(2025, 5, 10, 12);
const DAY = Math.floor(T0 / 86_400_000);

function newKey(userId: string): NewApiKey {
  const key = generateApiKey();
  return {
    id: randomId('key_', 16),
    userId,
    name: '',
    prefix: displayPrefix(key),
    digest: digestApiKey(key),
    createdAt: T0,
    expiresAt: null,
  };
}

const byKeyAndDay = (rows: readonly KeyDayUse[]) =>
  [...rows].sort((a, b) => (a.keyId === b.keyId ? a.day - b.day : a.keyId < b.keyId ? -1 : 1));

/**
 * What the in-process limiter starts from after a restart (CONTRACT.md section 4: "the counts
 * survive a restart"): each key's accepted requests per day with the latest acceptance, as
 * flushed by the key authenticator and read back at start. Run on every backend by
 * sqlite-storage.test.ts and postgres-storage.test.ts, beside the shared storage suite.
 */
export function runKeyQuotaSuite(backend: StorageBackend): void {
  async function withStore(work: (storage: Storage) => Promise<void>): Promise<void> {
    const { location, remove } = await backend.newLocation('quota');
    const storage = await openStorage(location);
    try {
      await work(storage);
    } finally {
      await storage.close();
      await remove();
    }
  }

  describe(`${backend.name} storage: the quota a restart starts from`, { skip: backend.skip ?? false }, () => {
    test('flushes add up the counts and keep the latest acceptance of each key and day, never moving it back', async () => {
      await withStore(async (storage) => {
        const key = newKey('u1');
        await storage.keys.createApiKey(key, 10, T0);
        await storage.quota.recordKeyUse({
          lastUsed: new Map(),
          requests: [{ keyId: key.id, day: DAY, requests: 2, lastAcceptedAt: T0 + 500 }],
        });
        await storage.quota.recordKeyUse({
          lastUsed: new Map(),
          requests: [{ keyId: key.id, day: DAY, requests: 1, lastAcceptedAt: T0 + 200 }],
        });
        assert.deepEqual(await storage.quota.listKeyRequestsSince(DAY), [
          { keyId: key.id, day: DAY, requests: 3, lastAcceptedAt: T0 + 500 },
        ]);
        await storage.quota.recordKeyUse({
          lastUsed: new Map(),
          requests: [{ keyId: key.id, day: DAY, requests: 1, lastAcceptedAt: T0 + 900 }],
        });
        assert.deepEqual(await storage.quota.listKeyRequestsSince(DAY), [
          { keyId: key.id, day: DAY, requests: 4, lastAcceptedAt: T0 + 900 },
        ]);
      });
    });

    test('a count flushed without a last acceptance reads null, and leaves a known one as it is', async () => {
      await withStore(async (storage) => {
        const [known, unknown] = [newKey('u1'), newKey('u1')];
        for (const key of [known, unknown]) await storage.keys.createApiKey(key, 10, T0);
        await storage.quota.recordKeyUse({
          lastUsed: new Map(),
          requests: [
            { keyId: known.id, day: DAY, requests: 1, lastAcceptedAt: T0 },
            { keyId: unknown.id, day: DAY, requests: 1 },
          ],
        });
        await storage.quota.recordKeyUse({
          lastUsed: new Map(),
          requests: [{ keyId: known.id, day: DAY, requests: 1 }],
        });
        assert.deepEqual(
          byKeyAndDay(await storage.quota.listKeyRequestsSince(DAY)),
          byKeyAndDay([
            { keyId: known.id, day: DAY, requests: 2, lastAcceptedAt: T0 },
            { keyId: unknown.id, day: DAY, requests: 1, lastAcceptedAt: null },
          ]),
        );
      });
    });

    test('lists every user’s keys for the days from the one given on, and none before it', async () => {
      await withStore(async (storage) => {
        const [mine, theirs] = [newKey('u1'), newKey('u2')];
        for (const key of [mine, theirs]) await storage.keys.createApiKey(key, 10, T0);
        const requests = [mine, theirs].flatMap((key) =>
          [DAY - 2, DAY - 1, DAY].map((day) => ({ keyId: key.id, day, requests: 1, lastAcceptedAt: day * 86_400_000 })),
        );
        await storage.quota.recordKeyUse({ lastUsed: new Map(), requests });
        const listed = byKeyAndDay(await storage.quota.listKeyRequestsSince(DAY - 1));
        assert.deepEqual(listed, byKeyAndDay(requests.filter((row) => row.day >= DAY - 1)));
        assert.deepEqual(await storage.quota.listKeyRequestsSince(DAY + 1), []);
      });
    });
  });
}
