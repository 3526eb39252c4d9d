import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { formatInstant, parseInstant } from '../../src/domain/instant.js';
import { instantMs as instant, RUNS } from '../support/arbitraries.js';

// Property-based tests, against a model written from the docs rather than from src: fast-check
// shrinks any counterexample to the smallest it can find and prints the seed that replays it.

describe('instants (lastModifiedSince, import dates)', () => {
  test('every instant of years 1 to 9999 reads back from its own writing', () => {
    fc.assert(
      fc.property(instant, (ms) => parseInstant(formatInstant(ms)) === ms),
      RUNS,
    );
  });

  test('an instant written with any offset and 0 to 9 fraction digits is the same instant, truncated to the millisecond', () => {
    fc.assert(
      fc.property(
        instant,
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        fc.integer({ min: 0, max: 9 }),
        fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 6, maxLength: 6 }),
        (ms, offsetMinutes, digits, extra) => {
          const local = new Date(ms + offsetMinutes * 60_000);
          fc.pre(local.getUTCFullYear() >= 1 && local.getUTCFullYear() <= 9999);
          const millis = ms - Math.floor(ms / 1000) * 1000;
          const fraction = `${String(millis).padStart(3, '0')}${extra}`.slice(0, digits);
          const sign = offsetMinutes < 0 ? '-' : '+';
          const abs = Math.abs(offsetMinutes);
          const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          const text = `${local.toISOString().slice(0, 19)}${digits === 0 ? '' : `.${fraction}`}${offset}`;
          const truncated = ms - millis + Number(fraction.slice(0, 3).padEnd(3, '0'));
          assert.equal(parseInstant(text), truncated, text);
        },
      ),
      RUNS,
    );
  });

  test('a day past the end of its month is refused, in every month of every year', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 9 }),
        (year, month, past) => {
          const last = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
          const day = Math.min(99, last + past);
          const text = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
          assert.equal(parseInstant(text), undefined, text);
        },
      ),
      RUNS,
    );
  });

  // formatInstant and readInstant compute dates in arithmetic where they used to build a Date:
  // Date itself is the model here.
  test('formatting writes what Date.prototype.toISOString writes, over all of Date’s range', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 }),
          fc.integer({ min: -62_198_755_200_000, max: 253_433_923_200_000 }),
        ),
        (ms) => formatInstant(ms) === new Date(ms).toISOString(),
      ),
      RUNS,
    );
  });

  test('a date-time of any year 0000-9999 reads as the instant Date computes for it, or is refused when Date moves its day', () => {
    fc.assert(
      fc.property(
        fc.record({
          year: fc.integer({ min: 0, max: 9999 }),
          month: fc.integer({ min: 1, max: 12 }),
          day: fc.integer({ min: 1, max: 31 }),
          hour: fc.integer({ min: 0, max: 23 }),
          minute: fc.integer({ min: 0, max: 59 }),
          second: fc.integer({ min: 0, max: 59 }),
          milli: fc.integer({ min: 0, max: 999 }),
          offset: fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        }),
        ({ year, month, day, hour, minute, second, milli, offset }) => {
          const two = (n: number) => String(n).padStart(2, '0');
          const sign = offset < 0 ? '-' : '+';
          const zone = `${sign}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
          const text = `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${two(second)}.${String(milli).padStart(3, '0')}${zone}`;
          const date = new Date(0);
          date.setUTCFullYear(year, month - 1, day);
          date.setUTCHours(hour, minute, second, milli);
          const epoch = date.getTime() - offset * 60_000;
          const utcYear = new Date(epoch).getUTCFullYear();
          const expected = date.getUTCDate() !== day || utcYear < 0 || utcYear > 9999 ? undefined : epoch;
          assert.equal(parseInstant(text), expected, text);
        },
      ),
      RUNS,
    );
  });

  test('any text is refused or read as a formattable instant, never thrown on', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0123456789-:T.Z+ tz') })), (text) => {
        const ms = parseInstant(text);
        if (ms !== undefined) assert.match(formatInstant(ms), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      }),
      { numRuns: 2000 },
    );
  });
});

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
