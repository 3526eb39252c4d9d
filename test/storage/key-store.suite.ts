import assert from 'node:assert/strict';
import { runSharedSuite } from '../support/shared-suite.js';
import { digestApiKey, generateApiKey } from '../../src/domain/api-key.js';
import { DAY_MS, newKey, type StoreSuiteOptions, T0, withSecondHandle, withStore } from '../support/store-fixtures.js';

/**
 * The key store (storage/key-store.ts), the same on every backend: keys as digests, found in
 * batches, and the limit of 10 active keys exact under concurrent creations.
 */
export function runKeyStoreSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: API keys', ({ test }) => {
    test('stores a key and finds it by digest, with no plain key or digest in the record', async () => {
      await withStore(options, async (storage) => {
        const key = newKey('u1', { expiresAt: T0 + DAY_MS });
        const created = await storage.keys.createApiKey(key, 10, T0);
        const expected = {
          id: key.id,
          userId: 'u1',
          name: 'key of u1',
          prefix: key.prefix,
          createdAt: T0,
          expiresAt: T0 + DAY_MS,
          lastUsedAt: null,
          revokedAt: null,
          appId: null,
        };
        assert.deepEqual(created, { ok: true, key: expected });
        assert.deepEqual(await storage.keys.findApiKeysByDigests([key.digest]), [expected]);
        assert.deepEqual(await storage.keys.listApiKeys('u1'), [expected]);
        assert.deepEqual(await storage.keys.findApiKeysByDigests([digestApiKey(generateApiKey())]), [undefined]);
      });
    });

    test('finds a batch of digests in one call, in the order asked, unknown ones as undefined', async () => {
      await withStore(options, async (storage) => {
        const [a, b] = [newKey('u1'), newKey('u2')];
        await storage.keys.createApiKey(a, 10, T0);
        await storage.keys.createApiKey(b, 10, T0);
        await storage.keys.revokeApiKey(b.id, T0 + 1);
        const unknown = digestApiKey(generateApiKey());
        const found = await storage.keys.findApiKeysByDigests([unknown, b.digest, a.digest, unknown, a.digest]);
        assert.deepEqual(
          found.map((key) => key?.id),
          [undefined, b.id, a.id, undefined, a.id],
        );
        assert.equal(found[1]?.revokedAt, T0 + 1, 'a revoked key is found, revoked');
        assert.deepEqual(await storage.keys.findApiKeysByDigests([]), []);
        const many = Array.from({ length: 1000 }, () => digestApiKey(generateApiKey()));
        many[999] = a.digest;
        const last = (await storage.keys.findApiKeysByDigests(many)).findIndex((key) => key !== undefined);
        assert.equal(last, 999, 'a batch of 1000');
      });
    });

    test('tells which of many key ids are still accepted: not revoked, not expired, not erased, not unknown', async () => {
      await withStore(options, async (storage) => {
        const [kept, revoked, expiring, erased] = [
          newKey('a1'),
          newKey('a1'),
          newKey('a2', { expiresAt: T0 + DAY_MS }),
          newKey('a3'),
        ];
        for (const key of [kept, revoked, expiring, erased]) await storage.keys.createApiKey(key, 10, T0);
        await storage.keys.revokeApiKey(revoked.id, T0 + 1);
        await storage.erasure.eraseUser('a3', T0 + 2);
        const ids = [kept.id, revoked.id, expiring.id, erased.id, 'key_unknown'];
        assert.deepEqual([...(await storage.keys.acceptedKeyIds(ids, T0 + 3))].sort(), [kept.id, expiring.id].sort());
        assert.deepEqual(
          [...(await storage.keys.acceptedKeyIds(ids, T0 + DAY_MS))],
          [kept.id],
          'expired at its instant',
        );
        assert.deepEqual([...(await storage.keys.acceptedKeyIds([], T0))], []);
        const many = [...Array.from({ length: 40_000 }, (_, n) => `key_none_${n}`), kept.id];
        assert.deepEqual([...(await storage.keys.acceptedKeyIds(many, T0))], [kept.id], 'past any bound on parameters');
      });
    });

    test('refuses a key whose id is taken (a creation sent twice), even at the limit, changing nothing', async () => {
      await withStore(options, async (storage) => {
        const first = newKey('u1');
        assert.equal((await storage.keys.createApiKey(first, 10, T0)).ok, true);
        const again = { ...newKey('u1'), id: first.id };
        assert.deepEqual(await storage.keys.createApiKey(again, 10, T0 + 1), { ok: false, reason: 'duplicate_id' });
        assert.deepEqual(await storage.keys.createApiKey(again, 1, T0 + 1), { ok: false, reason: 'duplicate_id' });
        const keys = await storage.keys.listApiKeys('u1');
        assert.deepEqual(
          keys.map((key) => [key.id, key.prefix]),
          [[first.id, first.prefix]],
        );
        assert.deepEqual(await storage.keys.findApiKeysByDigests([again.digest]), [undefined]);
      });
    });

    test('refuses an 11th active key, and other users are not counted', async () => {
      await withStore(options, async (storage) => {
        for (let i = 0; i < 10; i += 1) assert.equal((await storage.keys.createApiKey(newKey('u1'), 10, T0)).ok, true);
        assert.deepEqual(await storage.keys.createApiKey(newKey('u1'), 10, T0), {
          ok: false,
          reason: 'too_many_keys',
        });
        assert.equal((await storage.keys.listApiKeys('u1')).length, 10);
        assert.equal((await storage.keys.createApiKey(newKey('u2'), 10, T0)).ok, true);
      });
    });

    test('allows one more key after one is revoked', async () => {
      await withStore(options, async (storage) => {
        const ids: string[] = [];
        for (let i = 0; i < 10; i += 1) {
          const result = await storage.keys.createApiKey(newKey('u1'), 10, T0);
          if (result.ok) ids.push(result.key.id);
        }
        assert.equal((await storage.keys.createApiKey(newKey('u1'), 10, T0)).ok, false);
        await storage.keys.revokeApiKey(ids[3]!, T0 + 1);
        assert.equal((await storage.keys.createApiKey(newKey('u1'), 10, T0 + 2)).ok, true);
        assert.equal((await storage.keys.createApiKey(newKey('u1'), 10, T0 + 3)).ok, false);
      });
    });

    test('allows one more key once one has expired, and not before', async () => {
      await withStore(options, async (storage) => {
        await storage.keys.createApiKey(newKey('u1', { expiresAt: T0 + 90_000 }), 10, T0);
        for (let i = 0; i < 9; i += 1) await storage.keys.createApiKey(newKey('u1'), 10, T0);
        assert.equal((await storage.keys.createApiKey(newKey('u1'), 10, T0 + 89_999)).ok, false);
        assert.equal((await storage.keys.createApiKey(newKey('u1'), 10, T0 + 90_000)).ok, true);
      });
    });

    test('revoking is idempotent and keeps the first revokedAt; an unknown key id gives nothing', async () => {
      await withStore(options, async (storage) => {
        const key = newKey('u1');
        await storage.keys.createApiKey(key, 10, T0);
        assert.equal((await storage.keys.revokeApiKey(key.id, T0 + 5))?.revokedAt, T0 + 5);
        assert.equal((await storage.keys.revokeApiKey(key.id, T0 + 9))?.revokedAt, T0 + 5);
        assert.equal((await storage.keys.findApiKeysByDigests([key.digest]))[0]?.revokedAt, T0 + 5);
        assert.equal(await storage.keys.revokeApiKey('key_unknown', T0), undefined);
      });
    });

    test('recording uses sets lastUsedAt and never moves it back', async () => {
      await withStore(options, async (storage) => {
        const key = newKey('u1');
        await storage.keys.createApiKey(key, 10, T0);
        await storage.quota.recordKeyUse({ lastUsed: new Map([[key.id, T0 + 100]]), requests: [] });
        await storage.quota.recordKeyUse({ lastUsed: new Map([[key.id, T0 + 50]]), requests: [] });
        assert.equal((await storage.keys.listApiKeys('u1'))[0]?.lastUsedAt, T0 + 100);
        await storage.quota.recordKeyUse({ lastUsed: new Map([['key_unknown', T0]]), requests: [] });
      });
    });

    test('key creations for one user from two instances at once never exceed 10 active keys', async () => {
      await withStore(options, async (storage, location) => {
        await withSecondHandle(location, async (second) => {
          const attempts = Array.from({ length: 16 }, (_, i) =>
            (i % 2 === 0 ? storage : second).keys.createApiKey(newKey('u1', { name: `k${i}` }), 10, T0),
          );
          const results = await Promise.all(attempts);
          assert.equal(results.filter((result) => result.ok).length, 10);
          assert.equal((await storage.keys.listApiKeys('u1')).length, 10);
        });
      });
    });
  });
}
