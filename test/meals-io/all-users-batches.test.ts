import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { importUsersStream, type UsersBatchWriter } from '../../src/meals-io/all-users-import.js';
import { readUsersMealFile } from '../../src/meals-io/users-meal-file.js';
import type { UpsertResult, UserMealSave } from '../../src/storage/meal-writes.js';
import { jsonl, type Line, piecesOf } from './users-lines.js';

// How the import of every user's history cuts its records into batches and hands them to the
// writer (meals-io/all-users-import.ts): whole users, two batches written at once when they
// share no user and no id, told in file order whatever order they are answered in. The writes
// themselves, on both backends, are test/meals-io/all-users-import.test.ts's.

const usersOf = (records: readonly UserMealSave[]) =>
  [...new Set(records.map((record) => record.userId))].map(
    (user) => records.filter((record) => record.userId === user).length,
  );

const created = (records: readonly UserMealSave[]): UpsertResult => ({
  ok: true,
  created: records.length,
  updated: 0,
  unchanged: 0,
  stale: 0,
});

/** A writer whose batches are answered when the test says: what it was handed, in order, and the answers it owes. */
function heldWriter() {
  const handed: { records: readonly UserMealSave[]; answer: (result: UpsertResult | Error) => void }[] = [];
  let waiting: (() => void) | undefined;
  const write: UsersBatchWriter = (records) =>
    new Promise<UpsertResult>((resolve, reject) => {
      handed.push({ records, answer: (result) => (result instanceof Error ? reject(result) : resolve(result)) });
      waiting?.();
    });
  /** Resolves once `count` batches have been handed over. */
  const handedOver = async (count: number) => {
    while (handed.length < count) await new Promise<void>((resolve) => (waiting = resolve));
  };
  return { handed, write, handedOver };
}

const ids = (records: readonly UserMealSave[]) => records.map((record) => record.meal.id);
const stream = (lines: readonly Line[]) => readUsersMealFile(piecesOf(jsonl(lines)), 'jsonl');
const userLines = (userId: string, count: number, from = 0): Line[] =>
  Array.from({ length: count }, (_, n) => ({ userId, id: `${userId}-${from + n}` }));
/** Lets the import go on as far as it can without an answer. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 20));

describe('batches of whole users', () => {
  test("a user's records stay in one batch past its size; one of more than two batches' worth is cut", async () => {
    const sizes: number[][] = [];
    const lines: Line[] = [...userLines('b-a', 3), ...userLines('b-b', 2), ...userLines('b-c', 9)];
    const outcome = await importUsersStream(
      stream(lines),
      async (records) => {
        sizes.push(usersOf(records));
        return created(records);
      },
      { batchRecords: 2 },
    );
    assert.equal(outcome.ok, true);
    // b-a's 3 records together (past the size of 2, under 2 × 2 = 4), b-b's 2, then b-c's 9 in pieces of 4.
    assert.deepEqual(sizes, [[3], [2], [4], [4], [1]]);

    // A user that starts late in a batch is not cut before it has 4 records in it.
    const late: number[][] = [];
    await importUsersStream(
      stream([...userLines('b-x', 1), ...userLines('b-y', 5)]),
      async (records) => {
        late.push(usersOf(records));
        return created(records);
      },
      { batchRecords: 2 },
    );
    assert.deepEqual(late, [[1, 4], [1]]);
  });
});

describe('two batches at once', { timeout: 5_000 }, () => {
  test('a batch of other users goes to the writer before the one before it is answered; a third waits', async () => {
    const writer = heldWriter();
    const progress: number[] = [];
    const run = importUsersStream(
      stream([...userLines('w-a', 2), ...userLines('w-b', 2), ...userLines('w-c', 2)]),
      writer.write,
      { batchRecords: 2, onProgress: ({ committedLine }) => progress.push(committedLine) },
    );
    await writer.handedOver(2);
    await settle();
    assert.deepEqual(
      writer.handed.map(({ records }) => ids(records)),
      [
        ['w-a-0', 'w-a-1'],
        ['w-b-0', 'w-b-1'],
      ],
    );
    // The second answered first: nothing is told before the first, and the third waits for room.
    writer.handed[1]?.answer(created(writer.handed[1].records));
    await settle();
    assert.deepEqual(progress, []);
    assert.equal(writer.handed.length, 2);
    writer.handed[0]?.answer(created(writer.handed[0].records));
    await writer.handedOver(3);
    assert.deepEqual(progress, [2, 4], 'told in file order');
    writer.handed[2]?.answer(created(writer.handed[2].records));
    assert.deepEqual(await run, { ok: true, imported: 6, batches: 3, created: 6, updated: 0, unchanged: 0, stale: 0 });
    assert.deepEqual(progress, [2, 4, 6]);
  });

  for (const [name, lines] of [
    // A user of more than two batches' worth is cut in pieces: its second piece meets its first's lock.
    ['a piece of the same user', userLines('s-a', 5)],
    // Of two records of one id the later must meet the earlier committed, to be the foreign one.
    ['an id of the batch in flight', [...userLines('s-b', 2), { userId: 's-c', id: 's-b-0' }, ...userLines('s-c', 1)]],
  ] as const) {
    test(`a batch that shares ${name} waits until the one in flight is answered`, async () => {
      const writer = heldWriter();
      const run = importUsersStream(stream(lines), writer.write, { batchRecords: 1 });
      await writer.handedOver(1);
      await settle();
      assert.equal(writer.handed.length, 1, 'the second batch is not written beside the first');
      writer.handed[0]?.answer(created(writer.handed[0].records));
      await writer.handedOver(2);
      for (const { records, answer } of writer.handed.slice(1)) answer(created(records));
      // The rest goes one batch at a time, or two of other users: answered as they come.
      const answerRest = setInterval(() => {
        for (const { records, answer } of writer.handed.slice(2)) answer(created(records));
      }, 5);
      try {
        assert.equal((await run).ok, true);
      } finally {
        clearInterval(answerRest);
      }
    });
  }

  test('a fault of the first stops the run once the second is answered; the second is not counted as committed', async () => {
    const writer = heldWriter();
    const run = importUsersStream(
      stream([...userLines('f-a', 2), ...userLines('f-b', 2), ...userLines('f-c', 2)]),
      writer.write,
      { batchRecords: 2 },
    );
    await writer.handedOver(2);
    let answered = false;
    void run.then(() => (answered = true));
    writer.handed[0]?.answer({ ok: false, reason: 'foreign_id', index: 1 });
    await settle();
    assert.equal(answered, false, 'the run waits for the batch still being written');
    writer.handed[1]?.answer(created(writer.handed[1].records));
    assert.deepEqual(await run, {
      ok: false,
      reason: 'foreign_id',
      message: 'Line 2: id "f-a-1" belongs to another user.',
      line: 2,
      field: 'id',
      committed: 0,
      committedLine: 0,
    });
    assert.equal(writer.handed.length, 2, 'nothing is handed over after the fault');
  });

  test("a write's error is thrown once the batch beside it is answered", async () => {
    const writer = heldWriter();
    const run = importUsersStream(stream([...userLines('e-a', 2), ...userLines('e-b', 2)]), writer.write, {
      batchRecords: 2,
    });
    await writer.handedOver(2);
    let answered = false;
    run.catch(() => undefined).finally(() => (answered = true));
    writer.handed[0]?.answer(new Error('the store went away'));
    await settle();
    assert.equal(answered, false);
    writer.handed[1]?.answer(created(writer.handed[1].records));
    await assert.rejects(run, /the store went away/);
  });
});
