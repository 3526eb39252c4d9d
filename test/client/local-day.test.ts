import assert from 'node:assert/strict';
import { test } from 'node:test';
import { localDateOf, localTimeOf } from '../../src/client/index.js';

// The SDK's person's day (docs/api.md#the-persons-day): date at utcOffset, null when unknown.
test('localDateOf and localTimeOf read a meal where it was eaten, across UTC midnight both ways; null without an offset', () => {
  const cases = [
    [{ date: '2026-11-26T07:30:00.000Z', utcOffset: '-08:00' }, '2026-11-25', '23:30'],
    [{ date: '2026-11-25T15:30:00.000Z', utcOffset: '+09:00' }, '2026-11-26', '00:30'],
    [{ date: '2026-11-25T18:20:00.000Z', utcOffset: '+05:45' }, '2026-11-26', '00:05'],
    [{ date: '2026-12-31T23:59:00.000Z', utcOffset: '+14:00' }, '2027-01-01', '13:59'],
    [{ date: '2026-01-01T00:00:00.000Z', utcOffset: '-12:00' }, '2025-12-31', '12:00'],
    [{ date: '2026-11-25T12:00:00.000Z', utcOffset: '+00:00' }, '2026-11-25', '12:00'],
    [{ date: '2026-11-25T23:30:00.000Z', utcOffset: null }, null, null],
  ] as const;
  for (const [meal, date, time] of cases) {
    assert.equal(localDateOf(meal), date, JSON.stringify(meal));
    assert.equal(localTimeOf(meal), time, JSON.stringify(meal));
  }
});
