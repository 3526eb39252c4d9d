import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { type StorageMethod, createTimedStorage } from '../../src/metrics/timed-storage.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { makeTempDir } from '../support/project.js';
import { NO_NUTRIENTS } from '../support/contract.js';

test('the timed storage reports each call by method, failed calls included, and answers as the store does', async () => {
  const temp = makeTempDir('timed-storage');
  const timings: [StorageMethod, number][] = [];
  const storage = createTimedStorage(await openStorage(path.join(temp.dir, 'x.db')), (method, seconds) =>
    timings.push([method, seconds]),
  );
  try {
    assert.equal(storage.kind, 'sqlite');
    const written = await storage.writes.upsertMeals(
      'u_1',
      [
        {
          id: 'm1',
          description: '',
          title: 'soup',
          type: 'lunch',
          date: Date.UTC(2025, 0, 1),
          utcOffset: null,
          ...NO_NUTRIENTS,
        },
      ],
      Date.now(),
    );
    assert.deepEqual(written, { ok: true, created: 1, updated: 0, unchanged: 0, stale: 0 });
    const page = await storage.feed.listFeed({
      userId: 'u_1',
      start: { kind: 'from', modifiedAt: 0 },
      includeDeleted: false,
      limit: 10,
    });
    assert.equal(page.count, 1);
    const exported = [];
    for await (const meal of storage.feed.exportMeals('u_1', 0)) exported.push(meal.id);
    assert.deepEqual(exported, ['m1']);
    await storage.ping();
    assert.deepEqual(
      timings.map(([method]) => method),
      ['upsertMeals', 'listFeed', 'exportMeals', 'ping'],
    );
    assert.ok(timings.every(([, seconds]) => seconds >= 0 && seconds < 60));
  } finally {
    await storage.close();
    temp.remove();
  }
  // A closed store fails: the call is timed all the same, and the failure passes through.
  await assert.rejects(
    storage.feed.listFeed({ userId: 'u_1', start: { kind: 'from', modifiedAt: 0 }, includeDeleted: false, limit: 1 }),
  );
  assert.equal(timings.at(-1)?.[0], 'listFeed');
});
