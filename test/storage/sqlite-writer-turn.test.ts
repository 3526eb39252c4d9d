import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { MealSave } from '../../src/domain/meal.js';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { makeTempDir } from '../support/project.js';
import { meal, T0 } from '../support/store-fixtures.js';

// SQLite's one writer is the store's business: in one process, an import on a handle of its own
// and the writes of the serving handle take turns in the store, whoever calls them.

/** Batches of one meal each, the second held until `release` is called. */
function heldBatches(ids: readonly string[]): {
  batches: AsyncIterable<readonly MealSave[]>;
  release: () => void;
  started: Promise<void>;
} {
  let release = () => undefined as void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let started = () => undefined as void;
  const first = new Promise<void>((resolve) => (started = resolve));
  async function* batches() {
    yield [meal(ids[0] ?? 'a')];
    started();
    await released;
    for (const id of ids.slice(1)) yield [meal(id)];
  }
  return { batches: batches(), release, started: first };
}

test("a write of the serving handle waits for this process's import, however long, then goes through; imports take turns", async () => {
  const temp = makeTempDir('writer-turn');
  const file = path.join(temp.dir, 'store.db');
  const serving = await openSqliteStorage(file, { serving: true });
  const importer = await openSqliteStorage(file, { serving: true });
  const another = await openSqliteStorage(file, { serving: true });
  try {
    const held = heldBatches(['i1', 'i2']);
    const importing = importer.writes.importMeals('u1', held.batches, T0);
    await held.started;
    // The import holds the write lock, past the 5 s a lock of another process is waited for.
    const saved = serving.writes.saveMeal('u1', meal('s1'), T0);
    const second = heldBatches(['j1', 'j2']);
    second.release();
    const secondImport = another.writes.importMeals('u1', second.batches, T0);
    let savedAt = 0;
    void saved.then(() => (savedAt = performance.now()));
    // Reads go on meanwhile.
    assert.equal(await serving.feed.getMeal('u1', 'i1'), undefined, 'the import is not committed yet');
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    assert.equal(savedAt, 0, 'the save waits for the import');
    const releasedAt = performance.now();
    held.release();
    assert.equal((await importing).ok, true);
    const result = await saved;
    assert.equal(result.ok && result.outcome, 'created');
    assert.ok(savedAt >= releasedAt, 'saved once the import ended');
    assert.equal((await secondImport).ok, true, 'the second import took its turn');
    for (const id of ['i1', 'i2', 's1', 'j1', 'j2'])
      assert.notEqual(await serving.feed.getMeal('u1', id), undefined, id);
  } finally {
    await serving.close();
    await importer.close();
    await another.close();
    temp.remove();
  }
});
