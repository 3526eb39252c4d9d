import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { digestApiKey, displayPrefix, generateApiKey } from '../../src/domain/api-key.js';
import { randomId } from '../../src/domain/random-id.js';
import type { NewApiKey } from '../../src/domain/key-records.js';
import type { Storage } from '../../src/storage/storage.js';

/** A fresh, empty store, and how to dispose of it. */
export interface StoreUnderTest {
  readonly storage: Storage;
  dispose(): Promise<void>;
}

const T0 = Date.UTC(2025, 5, 10, 12);
const DAY = Math.floor(T0 / 86_400_000);
const MINUTE = 60_000;

const digest = () => createHash('sha256').update(randomBytes(32)).digest();

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

/**
 * The storage operations of the app page (issue 11), run against every backend by
 * storage.suite.ts (Hono's shared-suite habit, STYLE.md). `open` gives a fresh store per test;
 * `skip` says why the backend cannot run here.
 */
export function runAppStoreSuite(backend: string, skip: string | undefined, open: () => Promise<StoreUnderTest>): void {
  async function withStore(work: (storage: Storage) => Promise<void>): Promise<void> {
    const store = await open();
    try {
      await work(store.storage);
    } finally {
      await store.dispose();
    }
  }

  describe(`${backend} storage: login tokens and sessions`, { skip: skip ?? false }, () => {
    test('a login token gives its user once, then never again', async () => {
      await withStore(async (storage) => {
        const token = digest();
        await storage.signIns.createLoginToken({
          digest: token,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + 15 * MINUTE,
        });
        assert.equal(await storage.signIns.consumeLoginToken(token, T0 + MINUTE), 'u1');
        assert.equal(await storage.signIns.consumeLoginToken(token, T0 + MINUTE), undefined);
      });
    });

    test('of 20 simultaneous uses of one login token exactly one gets the user', async () => {
      await withStore(async (storage) => {
        const token = digest();
        await storage.signIns.createLoginToken({
          digest: token,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + 15 * MINUTE,
        });
        const answers = await Promise.all(
          Array.from({ length: 20 }, () => storage.signIns.consumeLoginToken(token, T0)),
        );
        assert.deepEqual(
          answers.filter((answer) => answer !== undefined),
          ['u1'],
        );
      });
    });

    test('an expired login token is refused and gone; an unknown one is refused', async () => {
      await withStore(async (storage) => {
        const token = digest();
        await storage.signIns.createLoginToken({
          digest: token,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + 15 * MINUTE,
        });
        assert.equal(await storage.signIns.consumeLoginToken(token, T0 + 15 * MINUTE), undefined);
        assert.equal(await storage.signIns.consumeLoginToken(token, T0), undefined, 'an expired token is used up too');
        assert.equal(await storage.signIns.consumeLoginToken(digest(), T0), undefined);
      });
    });

    test('a session is found until it expires, and not after it is deleted', async () => {
      await withStore(async (storage) => {
        const [kept, ended] = [digest(), digest()];
        for (const session of [kept, ended]) {
          await storage.signIns.createSession({
            digest: session,
            userId: 'u1',
            createdAt: T0,
            expiresAt: T0 + 60 * MINUTE,
          });
        }
        assert.deepEqual(await storage.signIns.findSession(kept, T0 + 60 * MINUTE - 1), {
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + 60 * MINUTE,
        });
        assert.equal(await storage.signIns.findSession(kept, T0 + 60 * MINUTE), undefined);
        await storage.signIns.deleteSession(ended);
        await storage.signIns.deleteSession(ended);
        assert.equal(await storage.signIns.findSession(ended, T0), undefined);
        assert.equal(await storage.signIns.findSession(digest(), T0), undefined);
      });
    });

    test('pruning removes expired login tokens and sessions only', async () => {
      await withStore(async (storage) => {
        const [oldToken, newToken, oldSession, newSession] = [digest(), digest(), digest(), digest()];
        await storage.signIns.createLoginToken({
          digest: oldToken,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + MINUTE,
        });
        await storage.signIns.createLoginToken({
          digest: newToken,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + 9 * MINUTE,
        });
        await storage.signIns.createSession({
          digest: oldSession,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + MINUTE,
        });
        await storage.signIns.createSession({
          digest: newSession,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + 9 * MINUTE,
        });
        assert.equal(await storage.signIns.pruneExpiredSignIns(T0 + 2 * MINUTE), 2);
        assert.equal(await storage.signIns.consumeLoginToken(newToken, T0 + 2 * MINUTE), 'u1');
        assert.equal((await storage.signIns.findSession(newSession, T0 + 2 * MINUTE))?.userId, 'u1');
      });
    });
  });

  describe(`${backend} storage: accepted requests per key and day`, { skip: skip ?? false }, () => {
    test('counts from several flushes add up per key and day; unknown keys are ignored', async () => {
      await withStore(async (storage) => {
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
      await withStore(async (storage) => {
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
  });
}
