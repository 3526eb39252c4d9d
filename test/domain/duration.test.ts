import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDuration } from '../../src/domain/duration.js';

describe('key lifetimes (--expires-in)', () => {
  test('90s, 30m, 12h and 30d are read as milliseconds', () => {
    assert.equal(parseDuration('90s'), 90_000);
    assert.equal(parseDuration('30m'), 1_800_000);
    assert.equal(parseDuration('12h'), 43_200_000);
    assert.equal(parseDuration('30d'), 2_592_000_000);
    assert.equal(parseDuration('1s'), 1000);
  });

  test('zero, a bare number, other units, signs, fractions and spaces are refused', () => {
    for (const text of [
      '0s',
      '0d',
      '5',
      '1w',
      '-1d',
      '+1d',
      '1.5h',
      ' 1h',
      '1h ',
      '1 h',
      'h',
      '',
      '1H',
      '1hh',
      '05m',
    ]) {
      assert.equal(parseDuration(text), undefined, JSON.stringify(text));
    }
  });
});
