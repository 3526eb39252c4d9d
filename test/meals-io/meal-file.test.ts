import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeFaults, parseMealFile } from '../../src/meals-io/meal-file.js';

const good = (id: string) => JSON.stringify({ id, type: 'lunch', date: '2025-01-01T12:00:00Z' });

test('a file of good records gives their meals in file order with their lines', () => {
  const result = parseMealFile(`${good('a')}\n\n${good('b')}\n`, 'jsonl');
  assert.ok(result.ok);
  assert.deepEqual(
    result.meals.map((m) => [m.line, m.meal.id]),
    [
      [1, 'a'],
      [3, 'b'],
    ],
  );
});

test('reading and checking faults are listed together in line order', () => {
  const text = [good('a'), '{"type":"brunch","date":"2025-01-01"}', 'not json', good('d'), '{"type":"lunch"}'].join(
    '\n',
  );
  const result = parseMealFile(text, 'jsonl');
  assert.ok(!result.ok);
  assert.deepEqual(
    result.errors.map((e) => e.line),
    [2, 3, 5],
  );
  assert.equal(
    describeFaults(result.errors),
    'line 2: type must be one of breakfast, lunch, dinner, snack, got "brunch" (and 2 more bad records)',
  );
});

test('one fault is reported alone, and one more as "1 more bad record"', () => {
  assert.equal(describeFaults([{ line: 7, message: 'date is required' }]), 'line 7: date is required');
  assert.equal(
    describeFaults([
      { line: 7, message: 'x' },
      { line: 9, message: 'y' },
    ]),
    'line 7: x (and 1 more bad record)',
  );
});

test('CSV cells are checked as CSV: an empty number cell is null', () => {
  const header =
    'id,type,date,title,description,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg';
  const result = parseMealFile(`${header}\r\nm1,lunch,2025-01-01,,,,1,2,3,4,5,6,7\r\n`, 'csv');
  assert.ok(result.ok);
  assert.equal(result.meals[0]?.meal.caloriesTotal, null);
  assert.equal(result.meals[0]?.meal.proteins_g, 1);
});
