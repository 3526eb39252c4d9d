import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  DigestChange,
  EMPTY_DIGEST,
  formatMealsDigest,
  mealDigestTerm,
  parseMealsDigest,
  sameMealsDigest,
} from '../../src/domain/meals-digest.js';
import { pythonMissing } from '../support/python.js';

const API_PAGE = readFileSync('docs/api.md', 'utf8');
const SECTION = API_PAGE.slice(API_PAGE.indexOf('## Verifying a copy'), API_PAGE.indexOf('## Limits'));

/** The worked example's rows: a meal (id, modifiedAt) and its term, or a total and its sum. */
function exampleRows(): { meal?: [string, string]; hex: string }[] {
  return [...SECTION.matchAll(/^\| (.+?) +\| `([0-9a-f]{32})` \|$/gm)].map(([, left = '', hex = '']) => {
    const meal = /^`(.+?)`, `(\d{4}-.+?Z)`/.exec(left);
    return meal === null ? { hex } : { meal: [meal[1] ?? '', meal[2] ?? ''], hex };
  });
}

test("the docs' worked example is what the service computes, term by term and in sum", () => {
  const rows = exampleRows();
  assert.equal(rows.length, 5);
  const digest = new DigestChange();
  for (const row of rows) {
    if (row.meal === undefined) {
      const value = digest.applyTo(EMPTY_DIGEST);
      assert.equal(formatMealsDigest(value), `count=${value.count}, sum=${row.hex}`);
      continue;
    }
    const [id, modifiedAt] = row.meal;
    assert.equal(mealDigestTerm(id, modifiedAt).toString(16).padStart(32, '0'), row.hex, id);
    digest.add(id, Date.parse(modifiedAt));
  }
});

test('a change takes the old term out and puts the new one in; an emptied copy is back to zero', () => {
  const digest = new DigestChange();
  digest.add('m1', Date.UTC(2025, 2, 1, 7, 30));
  digest.add('m1', Date.UTC(2025, 2, 1, 9));
  digest.remove('m1', Date.UTC(2025, 2, 1, 7, 30));
  const once = new DigestChange();
  once.add('m1', Date.UTC(2025, 2, 1, 9));
  assert.deepEqual(digest.applyTo(EMPTY_DIGEST), once.applyTo(EMPTY_DIGEST));
  digest.remove('m1', Date.UTC(2025, 2, 1, 9));
  assert.deepEqual(digest.applyTo(EMPTY_DIGEST), EMPTY_DIGEST);
  assert.equal(formatMealsDigest(EMPTY_DIGEST), `count=0, sum=${'0'.repeat(32)}`);
});

test("the docs' Python recipe gives the example's digests", { skip: pythonMissing() }, () => {
  const recipe = /```python\n([\s\S]*?)```/.exec(SECTION)?.[1];
  assert.ok(recipe !== undefined, 'the section holds a Python recipe');
  const meals = exampleRows().flatMap((row) => (row.meal === undefined ? [] : [row.meal]));
  const script = `${recipe}\nimport json, sys\nmeals = json.loads(sys.argv[1])\nprint(meals_digest(dict(meals[:2])))\nprint(meals_digest(dict(meals)))\n`;
  const printed = execFileSync('python3', ['-c', script, JSON.stringify(meals)], { encoding: 'utf8' });
  const sums = exampleRows().flatMap((row) => (row.meal === undefined ? [row.hex] : []));
  assert.deepEqual(printed.trim().split('\n'), [`count=2, sum=${sums[0]}`, `count=3, sum=${sums[1]}`]);
});

test('the header is read back to the same digest; anything not in its form is undefined', () => {
  const digest = new DigestChange();
  digest.add('café-☕', '2025-03-02T08:00:00.000Z');
  digest.add('m1', Date.UTC(2025, 2, 1, 7, 30));
  const value = digest.applyTo(EMPTY_DIGEST);
  const parsed = parseMealsDigest(formatMealsDigest(value));
  assert.ok(parsed !== undefined && sameMealsDigest(parsed, value));
  assert.deepEqual(parseMealsDigest(`count=0, sum=${'0'.repeat(32)}`), EMPTY_DIGEST);
  assert.deepEqual(parseMealsDigest(` count=2 ,sum=${'F'.repeat(32)} `), { count: 2, sum: (1n << 128n) - 1n });
  for (const text of [
    '',
    'count=1',
    `count=-1, sum=${'0'.repeat(32)}`,
    `count=1, sum=${'0'.repeat(31)}`,
    `sum=${'0'.repeat(32)}, count=1`,
  ]) {
    assert.equal(parseMealsDigest(text), undefined, text);
  }
});

test('a digest moved by many writes stays under 2^128, and taking out what was put in is back to zero', () => {
  const digest = new DigestChange();
  for (let i = 0; i < 1000; i += 1) digest.add(`m${i}`, i);
  assert.ok(digest.sum < 1n << 128n);
  for (let i = 0; i < 1000; i += 1) digest.remove(`m${i}`, i);
  assert.deepEqual(digest.applyTo(EMPTY_DIGEST), EMPTY_DIGEST);
});
