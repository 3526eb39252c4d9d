import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FeedPosition } from '../../src/domain/meal.js';
import { type MealsQuery, parseMealsQuery } from '../../src/http/meals-query.js';
import { AppError } from '../../src/errors.js';

const SINCE = 'lastModifiedSince=2025-01-01T00:00:00Z';
const GOOD_CURSOR = 'good-cursor';
const POSITION: FeedPosition = { modifiedAt: Date.UTC(2025, 0, 2), id: 'm_1' };

/** A cursor decoder like the route's: one cursor is valid, every other one is refused. */
const decodeCursor = (cursor: string): FeedPosition | undefined => (cursor === GOOD_CURSOR ? POSITION : undefined);

function parse(query: string): MealsQuery {
  return parseMealsQuery(query, decodeCursor);
}

/** The contract's 400 for a query: its code and the parameter it names. */
function fault(query: string): { code: string; param: string | undefined } {
  try {
    parse(query);
  } catch (error) {
    assert.ok(error instanceof AppError, `expected an AppError for ${query}, got ${String(error)}`);
    assert.equal(error.status, 400, `expected 400 for ${query}`);
    return { code: error.code, param: error.param };
  }
  return assert.fail(`expected ${JSON.stringify(query)} to be refused`);
}

const invalid = (param: string) => ({ code: 'invalid_parameter', param });

describe('the query of GET /v1/meals', () => {
  test('with only lastModifiedSince gets limit 1000, no cursor and no deleted meals', () => {
    assert.deepEqual(parse(SINCE), {
      lastModifiedSince: Date.UTC(2025, 0, 1),
      limit: 1000,
      cursor: undefined,
      includeDeleted: false,
      waitSeconds: undefined,
    });
  });

  test('without lastModifiedSince is missing_parameter naming lastModifiedSince', () => {
    assert.deepEqual(fault(''), { code: 'missing_parameter', param: 'lastModifiedSince' });
    assert.deepEqual(fault('limit=5'), { code: 'missing_parameter', param: 'lastModifiedSince' });
  });

  test('with an empty or unparseable lastModifiedSince is invalid_parameter', () => {
    assert.deepEqual(fault('lastModifiedSince='), invalid('lastModifiedSince'));
    assert.deepEqual(fault('lastModifiedSince'), invalid('lastModifiedSince'));
    assert.deepEqual(fault('lastModifiedSince=2025-02-30'), invalid('lastModifiedSince'));
    assert.deepEqual(fault('lastModifiedSince=yesterday'), invalid('lastModifiedSince'));
  });

  test('accepts limit 1, 5000 and 0005 written with leading zeros', () => {
    assert.equal(parse(`${SINCE}&limit=1`).limit, 1);
    assert.equal(parse(`${SINCE}&limit=5000`).limit, 5000);
    assert.equal(parse(`${SINCE}&limit=0005`).limit, 5);
    assert.equal(parse(`${SINCE}&limit=00000000000000000000000000000042`).limit, 42);
  });

  test('refuses every limit the contract lists, never clamping it', () => {
    for (const value of [
      '0',
      '-1',
      '%2B5',
      '+5',
      '5001',
      '1.5',
      '5.0',
      '1e3',
      'abc',
      '%205',
      '5%20',
      '',
      '0x10',
      '99999999999999999999999',
      '٥',
    ]) {
      assert.deepEqual(fault(`${SINCE}&limit=${value}`), invalid('limit'), `limit=${value}`);
    }
  });

  test('includeDeleted is exactly true or false', () => {
    assert.equal(parse(`${SINCE}&includeDeleted=true`).includeDeleted, true);
    assert.equal(parse(`${SINCE}&includeDeleted=false`).includeDeleted, false);
    for (const value of ['TRUE', 'True', 'FALSE', '1', '0', 'yes', 'no', '', 'true%20']) {
      assert.deepEqual(fault(`${SINCE}&includeDeleted=${value}`), invalid('includeDeleted'), value);
    }
  });

  test('wait is whole seconds from 1 to 120 in ASCII digits, leading zeros allowed', () => {
    assert.equal(parse(`${SINCE}&wait=1`).waitSeconds, 1);
    assert.equal(parse(`${SINCE}&wait=120`).waitSeconds, 120);
    assert.equal(parse(`${SINCE}&wait=0030`).waitSeconds, 30);
    assert.equal(parse(SINCE).waitSeconds, undefined);
    for (const value of [
      '0',
      '000',
      '121',
      '-1',
      '+5',
      '1.5',
      '5.0',
      '1e1',
      ' 5',
      '5%20',
      '',
      'abc',
      '%31%32%31',
      '٣',
    ]) {
      assert.deepEqual(fault(`${SINCE}&wait=${value}`), invalid('wait'), value);
    }
    assert.deepEqual(fault(`${SINCE}&wait=5&wait=5`), invalid('wait'));
  });

  test('a cursor is checked by the decoder given, and its position is returned', () => {
    const seen: string[] = [];
    const query = parseMealsQuery(`${SINCE}&cursor=${GOOD_CURSOR}`, (cursor) => {
      seen.push(cursor);
      return decodeCursor(cursor);
    });
    assert.deepEqual(seen, [GOOD_CURSOR]);
    assert.deepEqual(query.cursor, POSITION);
  });

  test('a cursor the decoder refuses, or an empty one, is invalid_parameter naming cursor', () => {
    assert.deepEqual(fault(`${SINCE}&cursor=altered`), invalid('cursor'));
    assert.deepEqual(fault(`${SINCE}&cursor=`), invalid('cursor'));
  });

  test('a parameter given twice is refused, even with the same value twice', () => {
    assert.deepEqual(fault(`${SINCE}&${SINCE}`), invalid('lastModifiedSince'));
    assert.deepEqual(fault(`${SINCE}&limit=5&limit=5`), invalid('limit'));
    assert.deepEqual(fault(`${SINCE}&cursor=${GOOD_CURSOR}&cursor=${GOOD_CURSOR}`), invalid('cursor'));
    assert.deepEqual(fault(`${SINCE}&includeDeleted=true&includeDeleted=true`), invalid('includeDeleted'));
    assert.deepEqual(fault(`${SINCE}&limt=1&limt=1`), invalid('limt'));
  });

  test('an unknown parameter is refused by its name, typos and a key in the query string included', () => {
    assert.deepEqual(fault(`${SINCE}&limt=5`), invalid('limt'));
    assert.deepEqual(fault(`${SINCE}&api_key=mxk_abc`), invalid('api_key'));
    assert.deepEqual(fault(`${SINCE}&LastModifiedSince=2025-01-01`), invalid('LastModifiedSince'));
    assert.deepEqual(fault(`${SINCE}&flag`), invalid('flag'));
  });

  test('empty pieces between ampersands are ignored', () => {
    assert.equal(parse(`&&${SINCE}&&limit=7&`).limit, 7);
  });

  test('with several faults at once, the first of lastModifiedSince, limit, cursor, includeDeleted, wait, then unknown ones is named', () => {
    const bad = {
      since: 'lastModifiedSince=nope',
      limit: 'limit=0',
      cursor: 'cursor=bad',
      includeDeleted: 'includeDeleted=yes',
      wait: 'wait=0',
      unknown: 'limt=5',
    };
    assert.deepEqual(fault([bad.unknown, bad.wait, bad.includeDeleted, SINCE].join('&')), invalid('includeDeleted'));
    assert.deepEqual(fault([bad.unknown, bad.wait, SINCE].join('&')), invalid('wait'));
    assert.deepEqual(fault([bad.wait, bad.limit, SINCE].join('&')), invalid('limit'));
    assert.deepEqual(
      fault([bad.unknown, bad.includeDeleted, bad.cursor, bad.limit, bad.since].join('&')),
      invalid('lastModifiedSince'),
    );
    assert.deepEqual(fault([bad.unknown, bad.includeDeleted, bad.cursor, bad.limit].join('&')), {
      code: 'missing_parameter',
      param: 'lastModifiedSince',
    });
    assert.deepEqual(
      fault([bad.unknown, bad.includeDeleted, bad.cursor, bad.limit, SINCE].join('&')),
      invalid('limit'),
    );
    assert.deepEqual(fault([bad.unknown, bad.includeDeleted, bad.cursor, SINCE].join('&')), invalid('cursor'));
    assert.deepEqual(fault([bad.unknown, bad.includeDeleted, SINCE].join('&')), invalid('includeDeleted'));
    assert.deepEqual(fault([bad.unknown, SINCE].join('&')), invalid('limt'));
    assert.deepEqual(fault(['limit=5', 'limit=6', bad.since].join('&')), invalid('lastModifiedSince'));
  });

  test('percent-encoding is decoded: %2B01:00 is an offset, and so is a literal + (never read as a space)', () => {
    const expected = Date.UTC(2024, 11, 31, 23);
    assert.equal(parse('lastModifiedSince=2025-01-01T00%3A00%3A00%2B01%3A00').lastModifiedSince, expected);
    assert.equal(parse('lastModifiedSince=2025-01-01T00:00:00+01:00').lastModifiedSince, expected);
    assert.equal(parse('lastModified%53ince=2025-01-01').lastModifiedSince, Date.UTC(2025, 0, 1));
  });

  test('malformed percent-encoding is a 400', () => {
    for (const query of [
      'lastModifiedSince=2025-01-01T00:00:00%ZZ',
      `${SINCE}&limit=%ZZ`,
      `${SINCE}&cursor=%E0%A4%A`,
      `${SINCE}&%ZZ=1`,
    ]) {
      const { code } = fault(query);
      assert.ok(code === 'invalid_parameter' || code === 'bad_request', `${query}: ${code}`);
    }
  });

  // A badly encoded limit is a fault of limit: when it is reported as a parameter fault, the
  // order of docs/errors.md#errors still names lastModifiedSince first.
  test('a malformed percent-encoding in a later parameter does not hide a fault of lastModifiedSince', () => {
    for (const query of ['lastModifiedSince=nope&limit=%ZZ', 'limit=%ZZ&lastModifiedSince=nope']) {
      const { code, param } = fault(query);
      if (code === 'invalid_parameter') assert.equal(param, 'lastModifiedSince', query);
      else assert.equal(code, 'bad_request', query);
    }
    const missing = fault('limt=%ZZ');
    if (missing.code !== 'bad_request') {
      assert.deepEqual(missing, { code: 'missing_parameter', param: 'lastModifiedSince' });
    }
  });
});
