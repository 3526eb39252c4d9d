import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openStorage } from '../../src/storage/open-storage.js';
import { makeTempDir } from '../support/project.js';
import { meal, T0, withSecondHandle } from '../support/store-fixtures.js';

// Erased means gone from the store's files, not only from its answers
// (docs/operations.md#erasure-and-backups): after the erasure neither the database file nor its
// write-ahead log holds a byte of the user's meals, earlier versions of a meal included, while
// another user's meals are still there to be found the same way.

/** Whether `text` stands anywhere in the file's bytes (a missing file holds nothing). */
function fileHolds(file: string, text: string): boolean {
  return existsSync(file) && readFileSync(file).includes(Buffer.from(text, 'utf8'));
}

test('SQLite: the erased meals are in neither the database file nor its WAL afterwards', async () => {
  const dir = makeTempDir('erasure-files');
  const db = path.join(dir.dir, 'meal-export.db');
  const wal = `${db}-wal`;
  const storage = await openStorage(db);
  try {
    const marker = (label: string) => `${label}-${randomBytes(8).toString('hex')}`;
    const leaver = { title: marker('LEAVER-TITLE'), older: marker('LEAVER-OLDER'), gone: marker('LEAVER-DELETED') };
    const stayer = marker('STAYER-TITLE');
    // Enough meals to fill pages of their own, and meals sharing pages with another user's.
    const many = Array.from({ length: 400 }, (_, i) =>
      meal(`leaver-${i}`, { title: `${leaver.title} ${i}`, description: 'x'.repeat(200) }),
    );
    await storage.writes.upsertMeals('leaver', many, T0);
    await storage.writes.upsertMeals('stayer', [meal('stayer-1', { title: stayer })], T0);
    // An earlier version of a meal, replaced, and a meal deleted into a tombstone.
    await storage.writes.upsertMeals('leaver', [meal('leaver-x', { title: leaver.older })], T0 + 1);
    await storage.writes.upsertMeals('leaver', [meal('leaver-x', { title: 'renamed' })], T0 + 2);
    await storage.writes.upsertMeals('leaver', [meal('leaver-y', { title: leaver.gone })], T0 + 3);
    await storage.writes.deleteMeal('leaver', 'leaver-y', T0 + 4);
    assert.ok(fileHolds(db, leaver.title) || fileHolds(wal, leaver.title), 'the check finds what is there');

    // Another handle on the file (a serving process beside the command) does not keep the log.
    await withSecondHandle(db, async (second) => {
      await second.feed.getMeal('leaver', 'leaver-1');
      const erased = await storage.erasure.eraseUser('leaver', T0 + 10);
      assert.equal(erased.meals, 402);
    });

    for (const text of Object.values(leaver)) {
      assert.equal(fileHolds(db, text), false, `the database file still holds ${text}`);
      assert.equal(fileHolds(wal, text), false, `the WAL still holds ${text}`);
    }
    assert.ok(!existsSync(wal) || readFileSync(wal).length === 0, 'the WAL is truncated');
    assert.ok(fileHolds(db, stayer), "another user's meal is still found in the file");
    assert.equal((await storage.feed.getMeal('stayer', 'stayer-1'))?.deleted, false);
  } finally {
    await storage.close();
    dir.remove();
  }
});
