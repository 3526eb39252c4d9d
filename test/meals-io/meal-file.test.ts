import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MealFileFormat } from '../../src/meals-io/file-format.js';
import { describeFirstFault, type ImportedMeal, isImportedMeal, readMealFile } from '../../src/meals-io/meal-file.js';
import type { LineError } from '../../src/meals-io/raw-record.js';

/** Every step of a streamed read, the text coming in pieces of `size` characters. */
async function readAll(text: string, format: MealFileFormat, size = 7) {
  async function* pieces() {
    for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
  }
  const meals: ImportedMeal[] = [];
  const errors: LineError[] = [];
  for await (const item of readMealFile(pieces(), format)) {
    if (isImportedMeal(item)) meals.push(item);
    else errors.push(item);
  }
  return { meals, errors };
}

const good = (id: string) => JSON.stringify({ id, type: 'lunch', date: '2025-01-01T12:00:00Z' });

test('a file of good records gives their meals in file order with their lines', async () => {
  const result = await readAll(`${good('a')}\n\n${good('b')}\n`, 'jsonl');
  assert.deepEqual(result.errors, []);
  assert.deepEqual(
    result.meals.map((m) => [m.line, m.meal.id]),
    [
      [1, 'a'],
      [3, 'b'],
    ],
  );
});

test('reading and checking faults come together in line order, between the good records', async () => {
  const text = [good('a'), '{"type":"brunch","date":"2025-01-01"}', 'not json', good('d'), '{"type":"lunch"}'].join(
    '\n',
  );
  const result = await readAll(text, 'jsonl');
  assert.deepEqual(
    result.meals.map((m) => m.line),
    [1, 4],
  );
  assert.deepEqual(
    result.errors.map((e) => e.line),
    [2, 3, 5],
  );
  const [first, ...more] = result.errors;
  assert.ok(first);
  assert.equal(
    describeFirstFault(first, more.length),
    'Line 2: type must be one of breakfast, lunch, dinner, snack, got "brunch" (and 2 more bad records).',
  );
});

test('one fault is reported alone, and one more as "1 more bad record"', () => {
  assert.equal(describeFirstFault({ line: 7, message: 'date is required.' }, 0), 'Line 7: date is required.');
  assert.equal(describeFirstFault({ line: 7, message: 'x' }, 1), 'Line 7: x (and 1 more bad record).');
  assert.equal(describeFirstFault({ line: 7, message: 'x' }, 3), 'Line 7: x (and 3 more bad records).');
});

test('CSV cells are checked as CSV: an empty number cell is null', async () => {
  const header =
    'id,type,date,title,description,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg';
  const result = await readAll(`${header}\r\nm1,lunch,2025-01-01T00:00:00Z,,,,1,2,3,4,5,6,7\r\n`, 'csv');
  assert.deepEqual(result.errors, []);
  assert.equal(result.meals[0]?.meal.caloriesTotal, null);
  assert.equal(result.meals[0]?.meal.proteins_g, 1);
});
