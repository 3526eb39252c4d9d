import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { digestApiKey, displayPrefix, generateApiKey } from '../../src/domain/api-key.js';
import { createKeyAuthenticator } from '../../src/keys/key-authenticator.js';
import { randomId } from '../../src/domain/random-id.js';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import type { ApiKeyRecord } from '../../src/domain/key-records.js';
import type { Storage } from '../../src/storage/storage.js';
import { makeTempDir } from '../support/project.js';

const T0 = Date.UTC(2025, 5, 10, 12);

/** A real SQLite store whose digest lookups are counted (a spy on the real thing, not a mock). */
interface CountingStore {
  readonly storage: Storage;
  /** Store calls. */
  lookups: number;
  /** Digests asked, over all calls. */
  digests: number;
}

function countLookups(storage: Storage): CountingStore {
  const counted: CountingStore = {
    lookups: 0,
    digests: 0,
    storage: {
      ...storage,
      keys: {
        ...storage.keys,
        findApiKeysByDigests(digests) {
          counted.lookups += 1;
          counted.digests += digests.length;
          return storage.keys.findApiKeysByDigests(digests);
        },
      },
    },
  };
  return counted;
}

describe('the key authenticator over a real SQLite store', () => {
  const temp = makeTempDir('key-auth');
  let storage: Storage;

  before(async () => {
    storage = await openSqliteStorage(path.join(temp.dir, 'store.db'));
  });

  after(async () => {
    await storage.close();
    temp.remove();
  });

  async function createKey(
    userId: string,
    expiresAt: number | null = null,
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = generateApiKey();
    const result = await storage.keys.createApiKey(
      {
        id: randomId('key_'),
        userId,
        name: 'test',
        prefix: displayPrefix(key),
        digest: digestApiKey(key),
        createdAt: T0,
        expiresAt,
      },
      10,
      T0,
    );
    if (!result.ok) return assert.fail(`could not create a key: ${result.reason}`);
    return { key, record: result.key };
  }

  test("a valid key authenticates as its user's key", async () => {
    const { key, record } = await createKey('u_valid');
    const found = await createKeyAuthenticator(storage).authenticate(key, T0);
    assert.deepEqual(found, record);
    assert.equal(found?.userId, 'u_valid');
  });

  test('an unknown but well-formed key is refused after one lookup', async () => {
    const spy = countLookups(storage);
    assert.equal(await createKeyAuthenticator(spy.storage).authenticate(generateApiKey(), T0), undefined);
    assert.equal(spy.lookups, 1);
  });

  test('a malformed token or one whose checksum fails is refused without a store lookup', async () => {
    const { key } = await createKey('u_checksum');
    const spy = countLookups(storage);
    const auth = createKeyAuthenticator(spy.storage);
    const lastChar = key.at(-1) === 'A' ? 'B' : 'A';
    for (const token of [
      `${key.slice(0, -1)}${lastChar}`,
      `${key.slice(0, 10)}${key[10] === 'x' ? 'y' : 'x'}${key.slice(11)}`,
      key.slice(0, -1),
      `${key}A`,
      key.toUpperCase(),
      '',
      'mxk_',
      'not-a-key',
      ` ${key}`,
    ]) {
      assert.equal(await auth.authenticate(token, T0), undefined, JSON.stringify(token));
    }
    assert.equal(spy.lookups, 0);
  });

  test('repeated and simultaneous uses of a key within the cache TTL cost one lookup', async () => {
    const { key } = await createKey('u_cache');
    const spy = countLookups(storage);
    const auth = createKeyAuthenticator(spy.storage, { cacheTtlMs: 500, clock: 'caller' });
    const found = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(key, T0)));
    for (const record of found) assert.equal(record?.userId, 'u_cache');
    assert.equal((await auth.authenticate(key, T0 + 499))?.userId, 'u_cache');
    assert.equal(spy.lookups, 1);
    await auth.authenticate(key, T0 + 500);
    assert.equal(spy.lookups, 2);
  });

  test('a revoked key stops authenticating once the cache TTL has passed, within 1 s', async () => {
    const { key, record } = await createKey('u_revoke');
    const auth = createKeyAuthenticator(storage, { clock: 'caller' });
    assert.equal((await auth.authenticate(key, T0))?.id, record.id);
    const revoked = await storage.keys.revokeApiKey(record.id, T0 + 10);
    assert.equal(revoked?.revokedAt, T0 + 10);
    assert.equal(await auth.authenticate(key, T0 + 500), undefined, 'refused once the default 500 ms TTL is over');
    assert.equal(await auth.authenticate(key, T0 + 10 + 1000), undefined);
  });

  test('with cacheTtlMs 100, a revocation shows after 100 ms', async () => {
    const { key, record } = await createKey('u_revoke_fast');
    const auth = createKeyAuthenticator(storage, { cacheTtlMs: 100, clock: 'caller' });
    assert.ok(await auth.authenticate(key, T0));
    await storage.keys.revokeApiKey(record.id, T0 + 1);
    assert.equal(await auth.authenticate(key, T0 + 100), undefined);
  });

  test('a revoked key stops authenticating after the TTL even when the wall clock is set back an hour', async () => {
    const { key, record } = await createKey('u_revoke_clock');
    const auth = createKeyAuthenticator(storage, { cacheTtlMs: 100 });
    assert.ok(await auth.authenticate(key, T0));
    await storage.keys.revokeApiKey(record.id, T0 + 1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    // The wall clock now reads an hour earlier: the cache's TTL is a duration, and it is over.
    assert.equal(await auth.authenticate(key, T0 - 3_600_000), undefined);
  });

  test('a key revoked before its first use never authenticates', async () => {
    const { key, record } = await createKey('u_revoked_early');
    await storage.keys.revokeApiKey(record.id, T0);
    assert.equal(await createKeyAuthenticator(storage).authenticate(key, T0 + 1), undefined);
  });

  test('an expired key is refused from its expiry on, even while it is cached', async () => {
    const { key } = await createKey('u_expiry', T0 + 90_000);
    const auth = createKeyAuthenticator(storage, { cacheTtlMs: 10 * 60_000 });
    assert.equal((await auth.authenticate(key, T0 + 89_999))?.userId, 'u_expiry');
    assert.equal(await auth.authenticate(key, T0 + 90_000), undefined);
    assert.equal(await createKeyAuthenticator(storage).authenticate(key, T0 + 100_000), undefined);
  });

  test('noted uses become lastUsedAt in keys list once flushed, keeping the latest', async () => {
    const { key, record } = await createKey('u_used');
    const auth = createKeyAuthenticator(storage);
    assert.ok(await auth.authenticate(key, T0 + 5000));
    auth.noteUse(record.id, T0 + 5000, true);
    auth.noteUse(record.id, T0 + 7000, false);
    assert.equal((await storage.keys.listApiKeys('u_used'))[0]?.lastUsedAt, null);
    await auth.flushUses();
    assert.equal((await storage.keys.listApiKeys('u_used'))[0]?.lastUsedAt, T0 + 7000);
    auth.noteUse(record.id, T0 + 6000, true);
    await auth.flushUses();
    assert.equal(
      (await storage.keys.listApiKeys('u_used'))[0]?.lastUsedAt,
      T0 + 7000,
      'an older use never moves it back',
    );
    await auth.flushUses();
  });

  test('accepted requests are counted per key and UTC day; refused ones (429) only set lastUsedAt', async () => {
    const { record } = await createKey('u_counted');
    const auth = createKeyAuthenticator(storage);
    const day = Math.floor(T0 / 86_400_000);
    const midnight = (day + 1) * 86_400_000;
    auth.noteUse(record.id, T0, true);
    auth.noteUse(record.id, T0 + 1, false);
    auth.noteUse(record.id, T0 + 2, true);
    auth.noteUse(record.id, midnight, true);
    await auth.flushUses();
    auth.noteUse(record.id, midnight + 5, true);
    auth.noteUse(record.id, midnight + 6, false);
    await auth.flushUses();
    assert.deepEqual(await storage.quota.listKeyRequests('u_counted', day - 1, day + 1), [
      { keyId: record.id, day, requests: 2 },
      { keyId: record.id, day: day + 1, requests: 2 },
    ]);
    assert.equal((await storage.keys.listApiKeys('u_counted'))[0]?.lastUsedAt, midnight + 6);
  });

  test('the latest accepted request of each key and day is flushed with its count, never a refused one', async () => {
    const { record } = await createKey('u_last_accepted');
    const day = Math.floor(T0 / 86_400_000);
    const auth = createKeyAuthenticator(storage);
    auth.noteUse(record.id, T0 + 20, true);
    auth.noteUse(record.id, T0 + 10, true);
    auth.noteUse(record.id, T0 + 30, false);
    await auth.flushUses();
    const mine = async () => (await storage.quota.listKeyRequestsSince(day)).filter((row) => row.keyId === record.id);
    assert.deepEqual(await mine(), [{ keyId: record.id, day, requests: 2, lastAcceptedAt: T0 + 20 }]);
  });

  test('a failed flush keeps the latest acceptance for the next one, merged with those noted since', async () => {
    const { record } = await createKey('u_flush_retry');
    const day = Math.floor(T0 / 86_400_000);
    let failNext = true;
    const failing: Storage = {
      ...storage,
      quota: {
        ...storage.quota,
        async recordKeyUse(uses) {
          if (failNext) {
            failNext = false;
            throw new Error('store busy');
          }
          return storage.quota.recordKeyUse(uses);
        },
      },
    };
    const auth = createKeyAuthenticator(failing);
    auth.noteUse(record.id, T0 + 50, true);
    await assert.rejects(auth.flushUses(), /store busy/);
    auth.noteUse(record.id, T0 + 40, true);
    await auth.flushUses();
    const mine = (await storage.quota.listKeyRequestsSince(day)).filter((row) => row.keyId === record.id);
    assert.deepEqual(mine, [{ keyId: record.id, day, requests: 2, lastAcceptedAt: T0 + 50 }]);
  });

  test('a cache bounded to 2 entries still authenticates every key', async () => {
    const keys = await Promise.all(['u_b1', 'u_b2', 'u_b3'].map((user) => createKey(user)));
    const auth = createKeyAuthenticator(storage, { maxCacheEntries: 2 });
    for (let round = 0; round < 3; round += 1) {
      for (const { key, record } of keys) assert.equal((await auth.authenticate(key, T0 + round))?.id, record.id);
    }
  });

  describe("paced lookups (a blocked address's keys)", () => {
    test('200 made-up keys at once cost one store call, and a valid key among them still authenticates', async () => {
      const { key, record } = await createKey('u_paced');
      const spy = countLookups(storage);
      const auth = createKeyAuthenticator(spy.storage);
      const madeUp = Array.from({ length: 200 }, () => auth.authenticate(generateApiKey(), T0, 'paced'));
      const valid = auth.authenticate(key, T0, 'paced');
      assert.deepEqual(
        await Promise.all(madeUp),
        Array.from({ length: 200 }, () => undefined),
      );
      assert.equal((await valid)?.id, record.id);
      assert.equal(spy.lookups, 1);
      assert.equal(spy.digests, 201);
    });

    test('batches are paced: lookups arriving in a row cost one store call per interval, not one each', async () => {
      const spy = countLookups(storage);
      const auth = createKeyAuthenticator(spy.storage, { pacedBatchIntervalMs: 100 });
      const started = performance.now();
      const answers: Promise<unknown>[] = [];
      // 50 lookups spread over ~250 ms.
      for (let i = 0; i < 50; i += 1) {
        answers.push(auth.authenticate(generateApiKey(), T0, 'paced'));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await Promise.all(answers);
      const elapsed = performance.now() - started;
      assert.equal(spy.digests, 50);
      assert.ok(spy.lookups <= Math.ceil(elapsed / 100) + 1, `${spy.lookups} store calls in ${Math.round(elapsed)} ms`);
      assert.ok(spy.lookups >= 2, 'the lookups after the first batch wait for the next');
    });

    test('a batch of at most pacedMaxBatch digests: the rest wait for the next one', async () => {
      const spy = countLookups(storage);
      const auth = createKeyAuthenticator(spy.storage, { pacedMaxBatch: 10, pacedBatchIntervalMs: 1 });
      await Promise.all(Array.from({ length: 25 }, () => auth.authenticate(generateApiKey(), T0, 'paced')));
      assert.equal(spy.lookups, 3);
      assert.equal(spy.digests, 25);
    });

    test('made-up keys are not cached (they cannot push keys in use out); a key found is', async () => {
      const { key, record } = await createKey('u_paced_cache');
      const spy = countLookups(storage);
      const auth = createKeyAuthenticator(spy.storage, { maxCacheEntries: 2, clock: 'caller' });
      assert.equal((await auth.authenticate(key, T0, 'paced'))?.id, record.id);
      await Promise.all(Array.from({ length: 10 }, () => auth.authenticate(generateApiKey(), T0, 'paced')));
      const before = spy.lookups;
      assert.equal((await auth.authenticate(key, T0 + 1))?.id, record.id);
      assert.equal(spy.lookups, before, 'the valid key is still cached');
    });

    test('a revoked key is refused when looked up paced', async () => {
      const { key, record } = await createKey('u_paced_revoked');
      await storage.keys.revokeApiKey(record.id, T0);
      assert.equal(await createKeyAuthenticator(storage).authenticate(key, T0 + 1, 'paced'), undefined);
    });
  });
});
