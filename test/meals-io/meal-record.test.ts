import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseMealRecord } from '../../src/meals-io/meal-record.js';

const VALID = {
  id: 'm_1',
  description: 'rice and beans',
  title: 'Lunch bowl',
  type: 'lunch',
  date: '2025-03-01T12:30:00.000Z',
  caloriesTotal: 512.5,
  proteins_g: 20.25,
  fats_g: 10,
  carbs_g: 50.75,
  fibers_g: 5,
  sodium_mg: 300.5,
  iron_mg: 2.25,
  calcium_mg: 120,
};

function message(fields: Record<string, unknown>, source: 'json' | 'csv' = 'json'): string {
  const result = parseMealRecord(fields, source);
  assert.equal(result.ok, false, `expected ${JSON.stringify(fields)} to be refused`);
  return result.ok ? '' : result.message;
}

function field(fields: Record<string, unknown>): string {
  const result = parseMealRecord(fields, 'json');
  return result.ok ? '' : result.field;
}

function meal(fields: Record<string, unknown>, source: 'json' | 'csv' = 'json') {
  const result = parseMealRecord(fields, source);
  if (!result.ok) assert.fail(`expected a meal, got: ${result.message}`);
  return result.meal;
}

describe('an import record', () => {
  test('with every field becomes the meal it describes, the date as epoch milliseconds', () => {
    assert.deepEqual(meal(VALID), { ...VALID, date: Date.UTC(2025, 2, 1, 12, 30), utcOffset: null });
  });

  test("takes its utcOffset from the record, else from the date's numeric offset, else null (Z names no place)", () => {
    const dinner = { ...VALID, date: '2026-11-25T19:30:00-08:00' };
    assert.deepEqual(
      { date: meal(dinner).date, utcOffset: meal(dinner).utcOffset },
      { date: Date.UTC(2026, 10, 26, 3, 30), utcOffset: '-08:00' },
      "the date stays the instant, in UTC; its offset is the meal's",
    );
    assert.equal(meal({ ...VALID, date: '2026-11-25T09:15:00+05:45' }).utcOffset, '+05:45');
    assert.equal(meal({ ...VALID, date: '2026-11-25T09:15:00+00:00' }).utcOffset, '+00:00');
    assert.equal(meal({ ...VALID, date: '2026-11-25T09:15:00Z' }).utcOffset, null);
    assert.equal(meal({ ...VALID, date: '2026-11-25T09:15:00-00:00' }).utcOffset, null, 'RFC 3339: an unknown offset');
    assert.equal(meal({ ...VALID, date: '2026-11-25T09:15:00+15:00' }).utcOffset, null, 'no place is 15 hours east');
    assert.equal(meal({ ...dinner, utcOffset: '-08:00' }).utcOffset, '-08:00', 'the same offset twice agrees');
    assert.equal(meal({ ...VALID, date: '2026-11-26T03:30:00Z', utcOffset: '+09:00' }).utcOffset, '+09:00');
    assert.equal(meal({ ...dinner, utcOffset: null }).utcOffset, '-08:00');
    assert.equal(meal({ ...VALID, utcOffset: '-14:00' }).utcOffset, '-14:00');
    assert.equal(meal({ ...VALID, utcOffset: '+14:00' }).utcOffset, '+14:00');
    assert.equal(meal({ ...VALID, date: '2026-11-25T19:30:00-08:00', utcOffset: '' }, 'csv').utcOffset, '-08:00');
  });

  test('refuses a utcOffset that is not ±HH:MM within 14 hours, naming utcOffset', () => {
    for (const bad of ['+15:00', '+14:01', '+9', '+09', '09:00', 'Z', '+09:60', ' +09:00', '+0900', 9, '']) {
      assert.equal(field({ ...VALID, utcOffset: bad }), 'utcOffset', JSON.stringify(bad));
      assert.match(
        message({ ...VALID, utcOffset: bad }),
        /^utcOffset must be an offset from UTC ±HH:MM, at most 14 hours/,
      );
    }
  });

  test('without an id, or with an empty or null one, gets a new random m_ id each time', () => {
    const { id: _, ...rest } = VALID;
    const ids = [meal(rest).id, meal({ ...rest, id: '' }).id, meal({ ...rest, id: null }).id];
    for (const id of ids) assert.match(id, /^m_[0-9A-Za-z]{22}$/);
    assert.equal(new Set(ids).size, 3);
  });

  test('keeps an id of 200 characters and refuses one of 201, a number and control characters', () => {
    assert.equal(meal({ ...VALID, id: 'x'.repeat(200) }).id.length, 200);
    assert.equal(message({ ...VALID, id: 'x'.repeat(201) }), 'id must be at most 200 characters.');
    assert.equal(message({ ...VALID, id: 42 }), 'id must be a string, got 42.');
    assert.match(message({ ...VALID, id: 'a\nb' }), /^id must not contain control characters/);
    assert.match(message({ ...VALID, id: 'a\u0085b' }), /^id must not contain control characters/);
  });

  test('refuses an id or a text with a lone surrogate, which would collide with others once stored as UTF-8', () => {
    assert.equal(message({ ...VALID, id: '\ud800' }), 'id must be well-formed Unicode, got "\\ud800".');
    assert.match(message({ ...VALID, id: 'a\udc00b' }), /^id must be well-formed Unicode/);
    assert.match(message({ ...VALID, title: 'x\ud83d' }), /^title must be well-formed Unicode/);
    assert.equal(meal({ ...VALID, id: 'm_😀' }).id, 'm_😀');
  });

  test('ignores modifiedAt, which the store sets', () => {
    assert.equal('modifiedAt' in meal({ ...VALID, modifiedAt: 'not even a date' }), false);
  });

  test('naming a field the Meal does not have is refused with that name', () => {
    assert.equal(message({ ...VALID, calories: 5 }), 'Unknown field "calories".');
    assert.equal(message({ ...VALID, deletedAt: null }), 'Unknown field "deletedAt".');
  });

  test('refuses a utcOffset that differs from a place offset written in date, naming utcOffset', () => {
    const refused = { ...VALID, date: '2025-03-01T10:00:00+01:00', utcOffset: '+05:30' };
    assert.equal(message(refused), 'utcOffset must be the offset written in date (+01:00), or absent, got "+05:30".');
    assert.equal(field(refused), 'utcOffset');
    assert.equal(field({ ...VALID, date: '2025-03-01T10:00:00+15:00', utcOffset: '+01:00' }), 'utcOffset');
    assert.equal(
      message({ ...VALID, date: '2025-03-01T10:00:00+01:00', utcOffset: '+05:30' }, 'csv'),
      'utcOffset must be the offset written in date (+01:00), or absent, got "+05:30".',
    );
    // Z, +00:00 and -00:00 name the instant, not a place: the record's offset is the person's.
    for (const date of ['2025-03-01T10:00:00Z', '2025-03-01T10:00:00+00:00', '2025-03-01T10:00:00-00:00']) {
      assert.equal(meal({ ...VALID, date, utcOffset: '+05:30' }).utcOffset, '+05:30', date);
    }
  });

  test('takes back the read-only fields a GET answers: id, modifiedAt ignored, deleted false, sourceVersion null', () => {
    const read = {
      ...VALID,
      utcOffset: null,
      modifiedAt: '2025-03-02T00:00:00.000Z',
      deleted: false,
      sourceVersion: null,
    };
    assert.deepEqual(meal(read), { ...VALID, date: Date.UTC(2025, 2, 1, 12, 30), utcOffset: null });
    assert.equal(
      message({ ...VALID, deleted: true }),
      'deleted must be false or absent (a delete removes a meal), got true.',
    );
    assert.equal(field({ ...VALID, deleted: true }), 'deleted');
    assert.equal(field({ ...VALID, deleted: 'false' }), 'deleted', 'JSON carries a boolean');
    assert.equal(meal({ ...VALID, deleted: 'false' }, 'csv').id, 'm_1', 'a CSV cell carries text');
  });

  test("with a PUT's path id takes a record without an id, or with that id, and refuses another, naming id", () => {
    const { id: _, ...noId } = VALID;
    const parsed = (fields: Record<string, unknown>) => parseMealRecord(fields, 'json', 'm_path');
    assert.deepEqual(parsed(noId), parseMealRecord({ ...noId, id: 'm_path' }, 'json'));
    assert.equal(parsed({ ...noId, id: 'm_path' }).ok, true);
    assert.equal(parsed({ ...noId, id: null }).ok, true);
    const other = parsed({ ...noId, id: 'm_other' });
    assert.deepEqual(other, {
      ok: false,
      field: 'id',
      message: 'id must be the path\'s meal id "m_path" or absent, got "m_other".',
    });
  });

  test('has "" for an absent or null title and description, and refuses other types', () => {
    const { description: _d, title: _t, ...rest } = VALID;
    const bare = meal(rest);
    assert.equal(bare.title, '');
    assert.equal(bare.description, '');
    assert.equal(meal({ ...VALID, title: null }).title, '');
    assert.equal(message({ ...VALID, title: 5 }), 'title must be a string or null, got 5.');
    assert.equal(message({ ...VALID, description: ['a'] }), 'description must be a string or null, got ["a"].');
  });

  test('keeps text of 10000 characters, counted as code points, and refuses 10001', () => {
    assert.equal(meal({ ...VALID, description: '😀'.repeat(10_000) }).description.length, 20_000);
    assert.equal(
      message({ ...VALID, description: 'a'.repeat(10_001) }),
      'description must be at most 10000 characters.',
    );
  });

  test('needs a type among breakfast, lunch, dinner and snack', () => {
    const { type: _, ...rest } = VALID;
    assert.equal(message(rest), 'type is required.');
    assert.equal(
      message({ ...VALID, type: 'brunch' }),
      'type must be one of breakfast, lunch, dinner, snack, got "brunch".',
    );
    assert.match(message({ ...VALID, type: 'Lunch' }), /^type must be one of/);
    for (const type of ['breakfast', 'lunch', 'dinner', 'snack']) assert.equal(meal({ ...VALID, type }).type, type);
  });

  test('needs a date the contract can read, with its offset: a local time or a bare day is refused, not taken as UTC', () => {
    const { date: _, ...rest } = VALID;
    assert.equal(message(rest), 'date is required.');
    assert.equal(meal({ ...VALID, date: '2025-03-01T13:30:00+01:00' }).date, Date.UTC(2025, 2, 1, 12, 30));
    assert.equal(meal({ ...VALID, date: '2025-03-01T12:30:00z' }).date, Date.UTC(2025, 2, 1, 12, 30));
    for (const naive of ['2025-03-01T12:30:00', '2025-03-01T12:30:00.123456', '2025-03-01']) {
      assert.equal(
        message({ ...VALID, date: naive }),
        `date must carry its offset from UTC (Z or ±HH:MM), such as 2025-03-01T12:30:00Z or 2025-03-01T12:30:00+01:00, got "${naive}".`,
      );
      assert.equal(field({ ...VALID, date: naive }), 'date');
    }
    assert.match(
      message({ ...VALID, date: '2025-02-30' }),
      /^date must be an ISO 8601 date-time .*, got "2025-02-30"\.$/,
    );
    assert.match(message({ ...VALID, date: 'yesterday' }), /^date must be an ISO 8601 date-time/);
    assert.match(message({ ...VALID, date: 1740832200000 }), /^date must be an ISO 8601 date-time/);
  });

  test('has null for an absent or null number, and refuses strings, negatives and booleans in JSON', () => {
    const { caloriesTotal: _, ...rest } = VALID;
    assert.equal(meal(rest).caloriesTotal, null);
    assert.equal(meal({ ...VALID, iron_mg: null }).iron_mg, null);
    assert.equal(meal({ ...VALID, fats_g: 0 }).fats_g, 0);
    assert.equal(message({ ...VALID, caloriesTotal: '512' }), 'caloriesTotal must be a number or null, got "512".');
    assert.equal(message({ ...VALID, calcium_mg: true }), 'calcium_mg must be a number or null, got true.');
    assert.equal(message({ ...VALID, sodium_mg: -1 }), 'sodium_mg must be 0 or more, got -1.');
  });

  test('reports the leftmost faulty field first', () => {
    assert.equal(message({ ...VALID, type: 'brunch', caloriesTotal: -5 }), message({ ...VALID, type: 'brunch' }));
  });
});

describe('a CSV import record', () => {
  const cells = Object.fromEntries(Object.entries(VALID).map(([name, value]) => [name, String(value)]));

  test('reads its number cells as numbers, and empty cells as null for numbers and "" for text', () => {
    assert.deepEqual(meal(cells, 'csv'), meal(VALID));
    const empty = meal({ ...cells, title: '', caloriesTotal: '', iron_mg: '' }, 'csv');
    assert.equal(empty.title, '');
    assert.equal(empty.caloriesTotal, null);
    assert.equal(empty.iron_mg, null);
  });

  test('accepts plain decimal notation: 12, 12.5, .5, 1e3', () => {
    for (const [text, value] of [
      ['12', 12],
      ['12.5', 12.5],
      ['.5', 0.5],
      ['1e3', 1000],
      ['0.0', 0],
    ] as const) {
      assert.equal(meal({ ...cells, fats_g: text }, 'csv').fats_g, value, text);
    }
  });

  test('refuses number cells that are not plain decimals, such as abc, " 5", 0x10, Infinity and 1,5', () => {
    for (const text of ['abc', ' 5', '5 ', '0x10', 'Infinity', '1,5', '+5', '1e', 'NaN']) {
      assert.equal(
        message({ ...cells, fats_g: text }, 'csv'),
        `fats_g must be a number or empty, got ${JSON.stringify(text)}.`,
      );
    }
    assert.equal(message({ ...cells, fats_g: '-2' }, 'csv'), 'fats_g must be 0 or more, got "-2".');
    assert.equal(message({ ...cells, fats_g: '1e400' }, 'csv'), 'fats_g must be a finite number, got "1e400".');
  });

  test('stores -0 as 0', () => {
    assert.ok(Object.is(meal({ ...cells, fats_g: '-0' }, 'csv').fats_g, 0));
  });

  test('with an empty type or date cell says the field is required', () => {
    assert.equal(message({ ...cells, type: '' }, 'csv'), 'type is required.');
    assert.equal(message({ ...cells, date: '' }, 'csv'), 'date is required.');
  });
});
