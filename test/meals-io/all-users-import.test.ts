import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { feedStart } from '../../src/domain/feed-start.js';
import { importUsersStream, type UsersImportOutcome } from '../../src/meals-io/all-users-import.js';
import { readUsersMealFile } from '../../src/meals-io/users-meal-file.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { expectedDigest, fullFeed } from '../support/live-digest.js';
import { jsonl, type Line, piecesOf } from './users-lines.js';
import { newPostgresSchema, postgresSkipReason, type TestPostgresStore } from '../support/postgres.js';
import { makeTempDir } from '../support/project.js';
import { runCli } from '../support/cli.js';
import { getMeals } from '../support/server.js';
import { addEndpoint, claimOne, LEASE_MS, T0 } from '../support/store-fixtures.js';

// The import of every user's history (docs/operations.md#bringing-in-the-apps-history) on both
// backends, through the file reader and the batches the command runs: the rules of a single
// user's import, batches of whole users kept when a later one fails, a run again after the fix,
// every user's digest exact, one change per user and batch.
const pgSkip = await postgresSkipReason();

const importText = (storage: Storage, text: string, batchRecords: number, now = T0): Promise<UsersImportOutcome> =>
  importUsersStream(
    readUsersMealFile(piecesOf(text), 'jsonl'),
    (records) => storage.writes.importUsersBatch(records, now),
    { batchRecords },
  );

const idsOf = async (storage: Storage, userId: string) =>
  (await fullFeed(storage, userId)).map((item) => item.id).sort();

function suite(
  name: string,
  skip: string | undefined,
  open: () => Promise<{ storage: Storage; url: string; remove(): Promise<void> }>,
) {
  describe(`the import of every user's history on ${name}`, { skip: skip ?? false }, () => {
    let storage: Storage;
    let url: string;
    let remove: () => Promise<void>;
    before(async () => {
      ({ storage, url, remove } = await open());
    });
    after(async () => {
      await storage?.close();
      await remove?.();
    });

    test('an id of another user stops the run at its line; the batches of whole users before it stay', async () => {
      const outcome = await importText(
        storage,
        jsonl([
          { userId: 'r-a', id: 'r-a1' },
          { userId: 'r-a', id: 'r-a2', sourceVersion: 2 },
          { userId: 'r-b', id: 'r-b1' },
          { userId: 'r-b', id: 'r-b2' },
          { userId: 'r-b', id: 'r-b3' },
          { userId: 'r-c', id: 'r-c1' },
          { userId: 'r-c', id: 'r-a1' },
        ]),
        2,
      );
      assert.deepEqual(outcome, {
        ok: false,
        reason: 'foreign_id',
        message: 'Line 7: id "r-a1" belongs to another user.',
        line: 7,
        field: 'id',
        committed: 5,
        committedLine: 5,
      });
      assert.deepEqual(await idsOf(storage, 'r-a'), ['r-a1', 'r-a2']);
      assert.deepEqual(await idsOf(storage, 'r-b'), ['r-b1', 'r-b2', 'r-b3']);
      assert.deepEqual(await idsOf(storage, 'r-c'), [], 'the failed batch wrote nothing');
    });

    test('the rules of one user’s import: unchanged writes nothing and moves no clock, an older version is stale, a changed meal is updated', async () => {
      const lines: Line[] = [
        { userId: 'v-a', id: 'v-a1', sourceVersion: 5 },
        { userId: 'v-a', id: 'v-a2' },
        { userId: 'v-b', id: 'v-b1' },
      ];
      assert.equal((await importText(storage, jsonl(lines), 2)).ok, true);
      const clocks = async () =>
        Promise.all(
          ['v-a', 'v-b'].map(async (userId) => (await fullFeed(storage, userId)).map((item) => item.modifiedAt)),
        );
      const before = await clocks();
      const again = await importText(storage, jsonl(lines), 2, T0 + 1000);
      assert.deepEqual(again, { ok: true, imported: 3, batches: 2, created: 0, updated: 0, unchanged: 3, stale: 0 });
      assert.deepEqual(await clocks(), before, 'nothing written, no modifiedAt moved');
      const changed = await importText(
        storage,
        jsonl([
          { userId: 'v-a', id: 'v-a1', sourceVersion: 4, title: 'older' },
          { userId: 'v-a', id: 'v-a2', title: 'newer' },
          { userId: 'v-b', id: 'v-b1', utcOffset: '+02:00' },
        ]),
        10,
        T0 + 2000,
      );
      assert.deepEqual(changed, { ok: true, imported: 3, batches: 1, created: 0, updated: 1, unchanged: 1, stale: 1 });
    });

    test('a bad line stops the run with its line and what was committed; run again after the fix, the rest goes in', async () => {
      const lines: Line[] = Array.from({ length: 7 }, (_, n) => ({ userId: `f-u${Math.floor(n / 2)}`, id: `f-m${n}` }));
      const broken = lines.map((line, n) => (n === 5 ? { ...line, caloriesTotal: 'lots' } : line));
      const stopped = await importText(storage, jsonl(broken), 2);
      assert.equal(stopped.ok, false);
      if (stopped.ok) return;
      assert.equal(stopped.reason, 'invalid');
      assert.equal(stopped.line, 6);
      assert.equal(stopped.field, 'caloriesTotal');
      assert.match(stopped.message, /^Line 6: caloriesTotal must be a number or null/);
      assert.deepEqual([stopped.committed, stopped.committedLine], [4, 4]);
      const fixed = await importText(storage, jsonl(lines), 2, T0 + 5000);
      assert.deepEqual(fixed, { ok: true, imported: 7, batches: 4, created: 3, updated: 0, unchanged: 4, stale: 0 });
    });

    test("every user's digest is exact after the load, and holds the file's meals", async () => {
      const lines: Line[] = [];
      for (let u = 0; u < 30; u += 1)
        for (let m = 0; m < 7; m += 1) lines.push({ userId: `d-u${u}`, id: `d-u${u}-m${m}` });
      assert.equal((await importText(storage, jsonl(lines), 20)).ok, true);
      for (let u = 0; u < 30; u += 1) {
        const userId = `d-u${u}`;
        const items = await fullFeed(storage, userId);
        assert.deepEqual(
          items.map((item) => item.id).sort(),
          lines
            .filter((line) => line.userId === userId)
            .map((line) => line.id)
            .sort(),
        );
        const page = await storage.feed.listFeed({
          userId,
          start: feedStart(0, undefined),
          includeDeleted: false,
          limit: 1,
        });
        assert.deepEqual(page.liveDigest, expectedDigest(items), userId);
      }
    });

    test('one change per user and batch: one webhook event for a user of 50 meals', async () => {
      await addEndpoint(storage, 'w-u1');
      const lines: Line[] = Array.from({ length: 50 }, (_, n) => ({ userId: 'w-u1', id: `w-m${n}` }));
      lines.push({ userId: 'w-u2', id: 'w-other' });
      assert.equal((await importText(storage, jsonl(lines), 100)).ok, true);
      const event = await claimOne(storage, T0 + LEASE_MS * 10);
      assert.equal(event.type, 'meals.changed');
    });

    test('a server on the same store answers while the load runs', async () => {
      const server = await startInProcessServer({ db: url });
      try {
        const { key } = await server.createKey('s-reader');
        const lines: Line[] = [];
        for (let u = 0; u < 200; u += 1)
          for (let m = 0; m < 100; m += 1) lines.push({ userId: `s-u${u}`, id: `s-u${u}-m${m}` });
        let loading = true;
        const load = importText(storage, jsonl(lines), 1000, Date.now()).finally(() => (loading = false));
        const statuses: number[] = [];
        while (loading)
          statuses.push((await getMeals(server, key, { lastModifiedSince: '2000-01-01T00:00:00.000Z' })).status);
        assert.deepEqual(await load.then((outcome) => outcome.ok), true);
        assert.ok(statuses.length > 0, 'the load left room for a request');
        assert.deepEqual([...new Set(statuses)], [200]);
      } finally {
        await server.stop();
      }
    });
  });
}

suite('SQLite', undefined, async () => {
  const temp = makeTempDir('all-users');
  const url = path.join(temp.dir, 'store.db');
  return { storage: await openStorage(url), url, remove: async () => temp.remove() };
});

suite('PostgreSQL', pgSkip, async () => {
  const schema: TestPostgresStore = await newPostgresSchema('all_users');
  return { storage: await openStorage(schema.url), url: schema.url, remove: () => schema.remove() };
});

describe('meals import --all-users', () => {
  test('says the line at fault and what was committed; the same command after the fix goes on; CSV names users by a column', async () => {
    const temp = makeTempDir('all-users-cli');
    try {
      const db = path.join(temp.dir, 'store.db');
      const lines: Line[] = Array.from({ length: 12_001 }, (_, n) => ({
        userId: `c-u${Math.floor(n / 3)}`,
        id: `c-m${n}`,
      }));
      const broken = lines.map((line, n) => (n === 12_000 ? { ...line, caloriesTotal: 'lots' } : line));
      const stopped = await runCli(['meals', 'import', '--all-users', '-', '--format', 'jsonl', '--db', db], {
        input: jsonl(broken),
      });
      assert.equal(stopped.code, 1);
      assert.equal(
        stopped.stderr,
        'meal-export: Line 12001: caloriesTotal must be a number or null, got "lots". 9000 records before it were committed (through line 9000): run the same command again once it is fixed.\n',
      );
      const fixed = await runCli(['meals', 'import', '--all-users', '-', '--format', 'jsonl', '--db', db, '--json'], {
        input: jsonl(lines),
      });
      assert.equal(fixed.code, 0, fixed.stderr);
      assert.deepEqual(JSON.parse(fixed.stdout), {
        imported: 12_001,
        created: 3001,
        updated: 0,
        unchanged: 9000,
        // Users of 3 records: four batches of 3 000 (at least 3 000, ended where the user changes)
        // and the last record; the batch open when the bad line came was not written.
        batches: 5,
      });
      const csv = await runCli(['meals', 'import', '--all-users', '-', '--format', 'csv', '--db', db], {
        input:
          'userId,id,description,title,type,date,utcOffset,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg\r\nc-csv,c-csv1,,Soup,lunch,2025-06-01T12:00:00.000Z,+00:00,,,,,,,,\r\n',
      });
      assert.equal(csv.stdout, 'imported 1 meal (1 created, 0 updated, 0 unchanged)\n', csv.stderr);
      const mixed = await runCli(['meals', 'import', '--all-users', '--user', 'x', '-', '--format', 'csv', '--db', db]);
      assert.equal(mixed.code, 2);
    } finally {
      temp.remove();
    }
  });
});

describe('the history import beside another import on one SQLite handle', () => {
  test('waits its turn instead of being refused', async () => {
    const temp = makeTempDir('all-users-turn');
    const storage = await openStorage(path.join(temp.dir, 'store.db'));
    try {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      async function* slow() {
        yield [{ ...JSON.parse(jsonl([{ id: 't-one' }])), date: Date.UTC(2025, 5, 1) }];
        await held;
      }
      const oneUser = storage.writes.importMeals('t-first', slow(), T0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const history = importText(storage, jsonl([{ userId: 't-second', id: 't-two' }]), 10);
      await new Promise((resolve) => setTimeout(resolve, 50));
      release();
      assert.equal((await oneUser).ok, true);
      assert.deepEqual(await history, {
        ok: true,
        imported: 1,
        batches: 1,
        created: 1,
        updated: 0,
        unchanged: 0,
        stale: 0,
      });
    } finally {
      await storage.close();
      temp.remove();
    }
  });
});
