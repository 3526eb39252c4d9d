import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { digestApiKey, displayPrefix, generateApiKey } from '../../src/domain/api-key.js';
import { randomId } from '../../src/domain/random-id.js';
import { loadUsedQuota } from '../../src/ratelimit/used-quota.js';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { makeTempDir } from '../support/project.js';

const DAY_MS = 86_400_000;
const MIDNIGHT = Date.UTC(2025, 5, 11);
const TODAY = MIDNIGHT / DAY_MS;
const SPEC = { minIntervalMs: 3000, dailyLimit: 1000 };

/** What a restarted in-process limiter resumes from, read from a real SQLite store (docs/operations.md). */
describe('the quota used before a restart, as read from the store at start', () => {
  const temp = makeTempDir('used-quota');
  let storage: Storage;

  before(async () => {
    storage = await openSqliteStorage(path.join(temp.dir, 'store.db'));
  });

  after(async () => {
    await storage?.close();
    temp.remove();
  });

  async function newKeyId(): Promise<string> {
    const key = generateApiKey();
    const id = randomId('key_', 16);
    await storage.keys.createApiKey(
      {
        id,
        userId: 'u1',
        name: '',
        prefix: displayPrefix(key),
        digest: digestApiKey(key),
        createdAt: 0,
        expiresAt: null,
      },
      10,
      0,
    );
    return id;
  }

  test("each key's count of today and its last acceptance while the interval holds; yesterday's count is not today's", async () => {
    const [busy, yesterdayOnly, lateYesterday] = await Promise.all([newKeyId(), newKeyId(), newKeyId()]);
    const now = MIDNIGHT + 1000;
    await storage.quota.recordKeyUse({
      lastUsed: new Map(),
      requests: [
        { keyId: busy, day: TODAY - 1, requests: 7, lastAcceptedAt: MIDNIGHT - 5000 },
        { keyId: busy, day: TODAY, requests: 4, lastAcceptedAt: MIDNIGHT + 500 },
        { keyId: yesterdayOnly, day: TODAY - 1, requests: 9, lastAcceptedAt: MIDNIGHT - 60_000 },
        { keyId: lateYesterday, day: TODAY - 1, requests: 2, lastAcceptedAt: MIDNIGHT - 1000 },
      ],
    });
    const used = await loadUsedQuota(storage.quota, SPEC, now);
    assert.equal(used.at, now);
    const byKey = new Map(used.keys.map((key) => [key.keyId, key]));
    assert.deepEqual(byKey.get(busy), { keyId: busy, usedToday: 4, lastAcceptedAt: MIDNIGHT + 500 });
    assert.deepEqual(byKey.get(lateYesterday), { keyId: lateYesterday, usedToday: 0, lastAcceptedAt: MIDNIGHT - 1000 });
    assert.equal(byKey.has(yesterdayOnly), false, 'nothing of yesterday holds it back');
  });

  test('a last acceptance whose interval is over is left out; a count without one is kept', async () => {
    const [old, unknown] = await Promise.all([newKeyId(), newKeyId()]);
    const now = MIDNIGHT + 3_600_000;
    await storage.quota.recordKeyUse({
      lastUsed: new Map(),
      requests: [
        { keyId: old, day: TODAY, requests: 2, lastAcceptedAt: now - 3000 },
        { keyId: unknown, day: TODAY, requests: 3 },
      ],
    });
    const used = await loadUsedQuota(storage.quota, SPEC, now);
    const byKey = new Map(used.keys.map((key) => [key.keyId, key]));
    assert.deepEqual(byKey.get(old), { keyId: old, usedToday: 2, lastAcceptedAt: undefined });
    assert.deepEqual(byKey.get(unknown), { keyId: unknown, usedToday: 3, lastAcceptedAt: undefined });
    assert.ok(
      used.keys.every((key) => key.usedToday > 0),
      'an hour after midnight, yesterday is not read at all',
    );
  });
});
