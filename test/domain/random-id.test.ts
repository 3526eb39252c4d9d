import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { randomId, toBase62 } from '../../src/domain/random-id.js';

describe('random ids', () => {
  test('are the prefix and 22 base62 characters by default, or the length asked for', () => {
    assert.match(randomId('m_'), /^m_[0-9A-Za-z]{22}$/);
    assert.match(randomId('k_', 10), /^k_[0-9A-Za-z]{10}$/);
    assert.match(randomId('', 200), /^[0-9A-Za-z]{200}$/);
  });

  test('are distinct and use the whole alphabet', () => {
    const ids = new Set<string>();
    const chars = new Set<string>();
    for (let i = 0; i < 5000; i += 1) {
      const id = randomId('m_');
      ids.add(id);
      for (const c of id.slice(2)) chars.add(c);
    }
    assert.equal(ids.size, 5000);
    assert.equal(chars.size, 62);
  });

  test('base62 writing pads to the width and counts in 0-9A-Za-z', () => {
    assert.equal(toBase62(0n, 3), '000');
    assert.equal(toBase62(61n, 2), '0z');
    assert.equal(toBase62(62n, 1), '10');
    assert.equal(toBase62(62n ** 6n - 1n, 6), 'zzzzzz');
  });
});
