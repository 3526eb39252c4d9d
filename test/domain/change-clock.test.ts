import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nextModifiedAt } from '../../src/domain/change-clock.js';

describe('the change clock: no change is ever missed', () => {
  test("a user's first write gets now", () => {
    assert.equal(nextModifiedAt(undefined, 1000), 1000);
  });

  test('a later write gets now when now is past the last modifiedAt', () => {
    assert.equal(nextModifiedAt(1000, 5000), 5000);
  });

  test('a write in the same millisecond, or with the wall clock gone back, gets the last modifiedAt + 1 ms', () => {
    assert.equal(nextModifiedAt(1000, 1000), 1001);
    assert.equal(nextModifiedAt(1000, 10), 1001);
  });

  test('a burst of writes at one instant gets strictly increasing values', () => {
    let clock: number | undefined;
    const values: number[] = [];
    for (let i = 0; i < 50; i += 1) {
      clock = nextModifiedAt(clock, 7);
      values.push(clock);
    }
    assert.deepEqual(
      values,
      values.map((_, i) => 7 + i),
    );
  });
});
