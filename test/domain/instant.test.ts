import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createInstantFormatter, formatInstant, nextUtcMidnight, parseInstant } from '../../src/domain/instant.js';

/** What the service echoes as lastModifiedSince for a text, or undefined when it answers 400. */
function echo(text: string): string | undefined {
  const epoch = parseInstant(text);
  return epoch === undefined ? undefined : formatInstant(epoch);
}

describe('lastModifiedSince parsing', () => {
  test('a date-time with Z or a lowercase z is that instant in UTC', () => {
    assert.equal(parseInstant('2025-01-01T00:00:00Z'), Date.UTC(2025, 0, 1));
    assert.equal(parseInstant('2025-01-01t12:34:56z'), Date.UTC(2025, 0, 1, 12, 34, 56));
    assert.equal(echo('2025-06-15T08:09:10Z'), '2025-06-15T08:09:10.000Z');
  });

  test('a ±hh:mm offset is subtracted to give UTC, at the extremes +14:00 and -12:00 and at +05:30', () => {
    assert.equal(echo('2025-01-01T00:00:00+01:00'), '2024-12-31T23:00:00.000Z');
    assert.equal(echo('2025-01-01T00:00:00-01:00'), '2025-01-01T01:00:00.000Z');
    assert.equal(echo('2025-01-01T00:00:00+14:00'), '2024-12-31T10:00:00.000Z');
    assert.equal(echo('2025-01-01T00:00:00-12:00'), '2025-01-01T12:00:00.000Z');
    assert.equal(echo('2025-01-01T05:30:00+05:30'), '2025-01-01T00:00:00.000Z');
    assert.equal(echo('2025-01-01T00:00:00-00:00'), '2025-01-01T00:00:00.000Z');
  });

  test('a date-time with no offset is UTC', () => {
    assert.equal(echo('2025-03-04T05:06:07'), '2025-03-04T05:06:07.000Z');
    assert.equal(echo('2025-03-04T05:06:07.25'), '2025-03-04T05:06:07.250Z');
  });

  test('a bare date is midnight UTC of that day', () => {
    assert.equal(parseInstant('2025-01-01'), Date.UTC(2025, 0, 1));
    assert.equal(echo('2024-02-29'), '2024-02-29T00:00:00.000Z');
  });

  test('1 to 9 fraction digits are kept to the millisecond and truncated, never rounded', () => {
    assert.equal(echo('2025-01-01T00:00:00.1Z'), '2025-01-01T00:00:00.100Z');
    assert.equal(echo('2025-01-01T00:00:00.12Z'), '2025-01-01T00:00:00.120Z');
    assert.equal(echo('2025-01-01T00:00:00.123Z'), '2025-01-01T00:00:00.123Z');
    assert.equal(echo('2025-01-01T00:00:00.9999Z'), '2025-01-01T00:00:00.999Z');
    assert.equal(echo('2025-01-01T00:00:00.999999999Z'), '2025-01-01T00:00:00.999Z');
    assert.equal(echo('2025-12-31T23:59:59.9999999+00:00'), '2025-12-31T23:59:59.999Z');
    assert.equal(echo('2025-01-01T00:00:00.000000001Z'), '2025-01-01T00:00:00.000Z');
  });

  test('ten fraction digits are refused', () => {
    assert.equal(parseInstant('2025-01-01T00:00:00.1234567890Z'), undefined);
  });

  // RFC 3339 (time-secfrac = "." 1*DIGIT) and ISO 8601 both need a digit after the decimal
  // sign: "0-9 fraction digits" means no fraction at all, or 1 to 9 digits after a ".".
  test('a decimal point with no fraction digits after it is refused', () => {
    assert.equal(parseInstant('2025-01-01T00:00:00.Z'), undefined);
    assert.equal(parseInstant('2025-01-01T00:00:00.'), undefined);
    assert.equal(parseInstant('2025-01-01T00:00:00.+01:00'), undefined);
  });

  test('impossible dates and times are refused, and 29 February only in a leap year', () => {
    assert.equal(parseInstant('2024-02-29'), Date.UTC(2024, 1, 29));
    assert.equal(parseInstant('2000-02-29T00:00:00Z'), Date.UTC(2000, 1, 29));
    for (const text of [
      '2025-02-30',
      '2023-02-29',
      '1900-02-29',
      '2025-04-31T00:00:00Z',
      '2025-13-01',
      '2025-00-10',
      '2025-01-00',
      '2025-01-32',
      '2025-01-01T24:00:00Z',
      '2025-01-01T23:60:00Z',
      '2025-01-01T23:59:60Z',
      '2025-01-01T00:00:00+24:00',
      '2025-01-01T00:00:00+01:60',
    ]) {
      assert.equal(parseInstant(text), undefined, `${text} must be refused`);
    }
  });

  test('anything that is not an ISO 8601 extended date or date-time is refused', () => {
    for (const text of [
      'not-a-date',
      '2025/01/01',
      '1735689600',
      '01-01-2025',
      '',
      ' ',
      ' 2025-01-01',
      '2025-01-01 ',
      '2025-01-01T00:00Z',
      '2025-01-01T00Z',
      '2025-01-01T',
      '20250101',
      '20250101T000000Z',
      '2025-1-1',
      '25-01-01',
      '+2025-01-01',
      '2025-01-01Z',
      '2025-01-01T00:00:00+0100',
      '2025-01-01T00:00:00+01',
      '2025-01-01T00:00:00ZZ',
      '2025-01-01T00:00:00 Z',
      '２０２５-01-01',
    ]) {
      assert.equal(parseInstant(text), undefined, `${JSON.stringify(text)} must be refused`);
    }
  });

  test('years 0000, 0001 and 9999 round-trip through parse and format (RFC 3339 allows 0000)', () => {
    assert.equal(echo('0000-01-01T00:00:00Z'), '0000-01-01T00:00:00.000Z');
    assert.equal(echo('0000-01-01'), '0000-01-01T00:00:00.000Z');
    assert.equal(echo('0000-02-29'), '0000-02-29T00:00:00.000Z');
    assert.equal(echo('0000-01-01T00:00:00+01:00'), undefined);
    assert.equal(echo('0001-01-01T00:00:00.000Z'), '0001-01-01T00:00:00.000Z');
    assert.equal(echo('0001-01-01'), '0001-01-01T00:00:00.000Z');
    assert.equal(echo('9999-12-31T23:59:59.999Z'), '9999-12-31T23:59:59.999Z');
    assert.equal(echo('0099-03-01'), '0099-03-01T00:00:00.000Z');
  });

  test('an instant that would fall past year 9999 is refused rather than written with six digits', () => {
    assert.equal(parseInstant('9999-12-31T23:59:59-01:00'), undefined);
  });

  test('formatting writes epoch milliseconds as YYYY-MM-DDTHH:mm:ss.sssZ', () => {
    assert.equal(formatInstant(0), '1970-01-01T00:00:00.000Z');
    assert.equal(formatInstant(Date.UTC(2025, 0, 2, 3, 4, 5, 6)), '2025-01-02T03:04:05.006Z');
  });

  test('the caching formatter writes what toISOString writes, across seconds, before 1970 and at the year bounds', () => {
    const format = createInstantFormatter();
    const starts = [0, -1500, Date.UTC(2025, 0, 1) - 3, Date.UTC(1, 0, 1), Date.UTC(9999, 11, 31, 23, 59, 58, 990)];
    for (const start of starts) {
      for (let ms = start; ms < start + 1200; ms += 7) {
        assert.equal(format(ms), new Date(ms).toISOString(), `at ${ms}`);
      }
    }
    // Jumping back and forth between seconds refreshes the cached second each time.
    for (const ms of [5_000, 1_999, 5_001, 1_000, 999]) assert.equal(format(ms), new Date(ms).toISOString());
  });
});

describe('the next UTC midnight (when the daily quota resets)', () => {
  test('is the following 00:00:00Z for any instant of a day', () => {
    const next = Date.UTC(2025, 0, 2);
    assert.equal(nextUtcMidnight(Date.UTC(2025, 0, 1, 0, 0, 0, 1)), next);
    assert.equal(nextUtcMidnight(Date.UTC(2025, 0, 1, 12)), next);
    assert.equal(nextUtcMidnight(next - 1), next);
  });

  test('at exactly midnight is the midnight a day later, not the same instant', () => {
    assert.equal(nextUtcMidnight(Date.UTC(2025, 0, 1)), Date.UTC(2025, 0, 2));
  });

  test('crosses month, year and leap-day boundaries', () => {
    assert.equal(nextUtcMidnight(Date.UTC(2024, 1, 28, 23)), Date.UTC(2024, 1, 29));
    assert.equal(nextUtcMidnight(Date.UTC(2024, 1, 29, 23)), Date.UTC(2024, 2, 1));
    assert.equal(nextUtcMidnight(Date.UTC(2025, 11, 31, 23, 59, 59, 999)), Date.UTC(2026, 0, 1));
  });
});
