import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseMealRecord, type RecordSource } from '../../src/meals-io/meal-record.js';

const VALID = { id: 'm_1', title: 'Lunch bowl', type: 'lunch', date: '2025-03-01T12:30:00.000Z', caloriesTotal: 512 };
const CELLS = { ...VALID, caloriesTotal: '512' };
const MAX = '9007199254740991';
const RANGE = `sourceVersion must be an integer from 0 to ${MAX}, got`;

function fault(fields: Record<string, unknown>, source: RecordSource = 'json') {
  const result = parseMealRecord(fields, source);
  if (result.ok) assert.fail(`expected ${JSON.stringify(fields)} to be refused`);
  return { message: result.message, field: result.field };
}

function versionOf(fields: Record<string, unknown>, source: RecordSource = 'json') {
  const result = parseMealRecord(fields, source);
  if (!result.ok) assert.fail(`expected a meal, got: ${result.message}`);
  return { has: 'sourceVersion' in result.meal, value: result.meal.sourceVersion };
}

describe('an import record with a sourceVersion', () => {
  test('in JSON takes an integer from 0 to 2^53 - 1; without one the meal has no sourceVersion key', () => {
    for (const value of [0, 1, 1_732_000_000_123, Number.MAX_SAFE_INTEGER]) {
      assert.deepEqual(versionOf({ ...VALID, sourceVersion: value }), { has: true, value });
    }
    assert.deepEqual(versionOf(VALID), { has: false, value: undefined });
    // null is no version, as every nullable field reads it (and as a GET of the meal shows it).
    assert.deepEqual(versionOf({ ...VALID, sourceVersion: null }), { has: false, value: undefined });
  });

  test('in JSON refuses a fraction, a negative, 2^53, a string and a boolean, naming the field', () => {
    const cases: [unknown, string][] = [
      [1.5, '1.5'],
      [-1, '-1'],
      [2 ** 53, '9007199254740992'],
      ['5', '"5"'],
      [true, 'true'],
    ];
    for (const [value, shown] of cases) {
      assert.deepEqual(fault({ ...VALID, sourceVersion: value }), {
        message: `${RANGE} ${shown}.`,
        field: 'sourceVersion',
      });
    }
  });

  test('in CSV reads a cell of digits, an empty cell as none, and refuses anything else', () => {
    assert.deepEqual(versionOf({ ...CELLS, sourceVersion: '42' }, 'csv'), { has: true, value: 42 });
    assert.deepEqual(versionOf({ ...CELLS, sourceVersion: MAX }, 'csv'), { has: true, value: Number(MAX) });
    assert.deepEqual(versionOf({ ...CELLS, sourceVersion: '' }, 'csv'), { has: false, value: undefined });
    for (const text of ['-1', '1.5', '1e3', ' 7', '0x10', '9007199254740992', 'abc']) {
      assert.deepEqual(fault({ ...CELLS, sourceVersion: text }, 'csv'), {
        message: `${RANGE} ${JSON.stringify(text)}.`,
        field: 'sourceVersion',
      });
    }
  });

  test('is checked after the Meal fields: the leftmost fault is still reported first', () => {
    assert.deepEqual(fault({ ...VALID, type: 'brunch', sourceVersion: -1 }).field, 'type');
  });
});

describe('a refused record names the field at fault', () => {
  test('each field by its name, an unknown field by its own name, with the messages as before', () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ...VALID, id: 42 }, 'id', 'id must be a string, got 42.'],
      [{ ...VALID, title: 5 }, 'title', 'title must be a string or null, got 5.'],
      [{ ...VALID, description: ['a'] }, 'description', 'description must be a string or null, got ["a"].'],
      [{ ...VALID, type: undefined }, 'type', 'type is required.'],
      [
        { ...VALID, date: 'yesterday' },
        'date',
        'date must be an ISO 8601 date-time such as 2025-03-01T12:30:00Z, got "yesterday".',
      ],
      [{ ...VALID, iron_mg: -1 }, 'iron_mg', 'iron_mg must be 0 or more, got -1.'],
      [{ ...VALID, calories: 5 }, 'calories', 'Unknown field "calories".'],
    ];
    for (const [fields, field, message] of cases) assert.deepEqual(fault(fields), { message, field });
    assert.deepEqual(fault({ ...CELLS, fats_g: 'abc' }, 'csv'), {
      message: 'fats_g must be a number or empty, got "abc".',
      field: 'fats_g',
    });
  });
});
