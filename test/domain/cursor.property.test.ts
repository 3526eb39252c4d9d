import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { createCursorCodec } from '../../src/domain/cursor.js';
import { LAST_MS, RUNS } from '../support/arbitraries.js';

// Property-based tests, against a model written from the docs rather than from src: fast-check
// shrinks any counterexample to the smallest it can find and prints the seed that replays it.

describe('cursor', () => {
  const codec = createCursorCodec(randomBytes(32));
  const position = fc.record({
    modifiedAt: fc.integer({ min: 0, max: LAST_MS }),
    // Meal ids are never empty (an import gives an empty id a random one).
    id: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }),
  });

  test('a cursor decodes, for its user only, to the position it was made from', () => {
    fc.assert(
      fc.property(position, fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (at, user, other) => {
        const cursor = codec.encode(user, at);
        assert.deepEqual(codec.decode(user, cursor), { modifiedAt: at.modifiedAt, id: at.id });
        if (other !== user) assert.equal(codec.decode(other, cursor), undefined);
      }),
      RUNS,
    );
  });

  test('a cursor with any character changed, added or removed is refused', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ %';
    fc.assert(
      fc.property(
        position,
        fc.nat(),
        fc.constantFrom(...alphabet),
        fc.constantFrom('change', 'insert', 'remove'),
        (at, where, char, edit) => {
          const cursor = codec.encode('u', at);
          const i = where % cursor.length;
          const altered =
            edit === 'change'
              ? `${cursor.slice(0, i)}${char}${cursor.slice(i + 1)}`
              : edit === 'insert'
                ? `${cursor.slice(0, i)}${char}${cursor.slice(i)}`
                : `${cursor.slice(0, i)}${cursor.slice(i + 1)}`;
          fc.pre(altered !== cursor);
          assert.equal(codec.decode('u', altered), undefined, `${edit} at ${i}: ${altered}`);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('any text is refused, never thrown on', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.base64String(), fc.string({ unit: fc.constantFrom(...'AQ_-') })), (text) => {
        assert.equal(codec.decode('u', text), undefined);
      }),
      { numRuns: 2000 },
    );
  });
});
