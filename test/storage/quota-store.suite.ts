import assert from 'node:assert/strict';
import type { KeyDayUse } from '../../src/domain/key-records.js';
import { runSharedSuite } from '../support/shared-suite.js';
import { newKey, type StoreSuiteOptions, T0, T0_DAY as DAY, withStore } from '../support/store-fixtures.js';

const byKeyAndDay = (rows: readonly KeyDayUse[]) =>
  [...rows].sort((a, b) => (a.keyId === b.keyId ? a.day - b.day : a.keyId < b.keyId ? -1 : 1));

/**
 * Each key's accepted requests per day (storage/quota-store.ts), the same on every backend:
 * what the app page lists, and what the in-process limiter starts from after a restart (the
 * counts survive it, docs/operations.md#limits-across-restarts): flushes from several
 * instances add up, and the latest acceptance of a day never moves back.
 */
export function runQuotaStoreSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: accepted requests per key and day', ({ test }) => {
    test('counts from several flushes add up per key and day; unknown keys are ignored', async () => {
      await withStore(options, async (storage) => {
        const [a, b] = [newKey('u1'), newKey('u1')];
        for (const key of [a, b]) assert.equal((await storage.keys.createApiKey(key, 10, T0)).ok, true);
        await storage.quota.recordKeyUse({
          lastUsed: new Map([[a.id, T0]]),
          requests: [
            { keyId: a.id, day: DAY, requests: 3 },
            { keyId: b.id, day: DAY - 1, requests: 1 },
            { keyId: 'key_unknown', day: DAY, requests: 9 },
          ],
        });
        await storage.quota.recordKeyUse({ lastUsed: new Map(), requests: [{ keyId: a.id, day: DAY, requests: 2 }] });
        const expected = [
          { keyId: a.id, day: DAY, requests: 5 },
          { keyId: b.id, day: DAY - 1, requests: 1 },
        ].sort((x, y) => (x.keyId < y.keyId ? -1 : 1));
        assert.deepEqual(await storage.quota.listKeyRequests('u1', DAY - 29, DAY), expected);
        assert.equal((await storage.keys.listApiKeys('u1')).find((key) => key.id === a.id)?.lastUsedAt, T0);
      });
    });

    test('the list holds only the user’s keys, revoked ones included, within the inclusive day range', async () => {
      await withStore(options, async (storage) => {
        const [mine, revoked, theirs] = [newKey('u1'), newKey('u1'), newKey('u2')];
        for (const key of [mine, revoked, theirs]) await storage.keys.createApiKey(key, 10, T0);
        await storage.keys.revokeApiKey(revoked.id, T0);
        const requests = [mine, revoked, theirs].flatMap((key) =>
          [DAY - 30, DAY - 29, DAY].map((day) => ({ keyId: key.id, day, requests: 1 })),
        );
        await storage.quota.recordKeyUse({ lastUsed: new Map(), requests });
        const listed = await storage.quota.listKeyRequests('u1', DAY - 29, DAY);
        assert.equal(listed.length, 4);
        assert.ok(listed.every((row) => row.keyId !== theirs.id && row.day >= DAY - 29));
        assert.ok(listed.some((row) => row.keyId === revoked.id));
        assert.equal(await storage.quota.pruneKeyRequests(DAY - 29), 3);
        assert.equal((await storage.quota.listKeyRequests('u1', 0, DAY)).length, 4);
      });
    });

    test('flushes add up the counts and keep the latest acceptance of each key and day, never moving it back', async () => {
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage) => {
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
      await withStore(options, async (storage) => {
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
