import { NO_NUTRIENTS } from '../support/contract.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MealMirror } from '../../src/client/pull/meal-mirror.js';
import { createMealsDigest } from '../../src/client/meals-digest.js';
import { createPullProgress } from '../../src/client/pull/pull-progress.js';
import type { Meal, Tombstone } from '../../src/client/types.js';

function meal(id: string, modifiedAt: string, title = id): Meal {
  return {
    id,
    description: '',
    title,
    type: 'lunch',
    date: '2025-03-01T12:00:00.000Z',
    utcOffset: null,
    ...NO_NUTRIENTS,
    modifiedAt,
    deleted: false,
  };
}

const gone = (id: string, modifiedAt: string): Tombstone => ({ id, modifiedAt, deleted: true });
/** A stand-in for stderr that keeps what was written. */
function recorder(isTTY: boolean) {
  const stream = {
    isTTY,
    text: '',
    write(chunk: string) {
      stream.text += chunk;
      return true;
    },
  };
  return stream;
}

const T = (n: number) => `2025-03-01T00:00:0${n}.000Z`;

test('the copy upserts by id in the order of last change, and applies tombstones', () => {
  const mirror = new MealMirror();
  assert.deepEqual(mirror.apply([meal('a', T(1)), meal('b', T(2)), meal('c', T(3))]), { upserted: 3, deleted: 0 });
  assert.deepEqual(mirror.apply([meal('a', T(4), 'changed'), gone('b', T(5)), gone('unknown', T(6))]), {
    upserted: 1,
    deleted: 1,
  });
  assert.deepEqual(
    [...mirror.values()].map((m) => [m.id, m.title, m.modifiedAt]),
    [
      ['c', 'c', Date.parse(T(3))],
      ['a', 'changed', Date.parse(T(4))],
    ],
  );
});

test('applying the same page twice changes nothing and counts nothing the second time', () => {
  // A feed names each meal once, at its last change.
  const page = [meal('a', T(2)), meal('b', T(3)), gone('c', T(4))];
  const mirror = new MealMirror();
  mirror.apply([meal('c', T(1))]);
  assert.deepEqual(mirror.apply(page), { upserted: 2, deleted: 1 });
  const once = [...mirror.values()];
  assert.deepEqual(mirror.apply(page), { upserted: 0, deleted: 0 });
  assert.deepEqual([...mirror.values()], once);
});

test('progress rewrites one line on a terminal, counts down waits, and stays silent elsewhere', () => {
  const terminal = recorder(true);
  const progress = createPullProgress(terminal);
  progress.page(2, 1500);
  progress.waiting('interval', 3000);
  progress.notice('a notice');
  progress.page(3, 1501);
  progress.following();
  progress.done();
  assert.match(terminal.text, /2 pages, 1,500 meals/);
  assert.match(terminal.text, /2 pages, 1,500 meals · waiting 3 s for the rate limit/);
  assert.match(terminal.text, /3 pages, 1,501 meals · up to date, following changes/);
  assert.match(terminal.text, /meal-export: a notice\n/);
  assert.ok(terminal.text.endsWith('\r\x1b[2K'));

  const pipe = recorder(false);
  const quiet = createPullProgress(pipe);
  quiet.page(1, 1);
  quiet.waiting('rate_limited', 3000);
  quiet.following();
  quiet.notice('still said');
  quiet.done();
  assert.equal(pipe.text, 'meal-export: still said\n');
});

test("the mirror's digest moves with every page: a change swaps the meal's term, a tombstone takes it out", () => {
  const mirror = new MealMirror();
  mirror.apply([meal('a', '2025-03-01T10:00:00.000Z'), meal('b', '2025-03-01T10:00:00.001Z')]);
  mirror.apply([meal('a', '2025-03-01T11:00:00.000Z', 'changed'), gone('b', '2025-03-01T11:00:00.001Z')]);
  mirror.apply([gone('unknown', '2025-03-01T11:00:00.002Z'), meal('ü-☕', '2025-03-01T11:00:00.003Z')]);
  const expected = createMealsDigest();
  expected.add('a', '2025-03-01T11:00:00.000Z');
  expected.add('ü-☕', '2025-03-01T11:00:00.003Z');
  assert.deepEqual(mirror.digest, expected.value);
  assert.deepEqual(new MealMirror(mirror.values()).digest, expected.value, 'the same, computed from the copy as read');
  mirror.clear();
  assert.deepEqual(mirror.digest, { count: 0, sum: 0n });
});
