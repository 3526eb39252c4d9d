import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { generateApiKey, isWellFormedApiKey, redactApiKeys } from '../../src/domain/api-key.js';
import { generateServiceToken } from '../../src/domain/service-token.js';
import { RUNS } from '../support/arbitraries.js';

// Property-based tests, against a model written from the docs rather than from src: fast-check
// shrinks any counterexample to the smallest it can find and prints the seed that replays it.

describe('API keys', () => {
  const key = fc.constant(null).map(() => generateApiKey());
  const base62 = fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz');

  test('a generated key is well-formed, and any one character changed makes it malformed', () => {
    fc.assert(
      fc.property(key, fc.integer({ min: 4, max: 52 }), base62, (sent, i, char) => {
        assert.ok(isWellFormedApiKey(sent), sent);
        const typo = `${sent.slice(0, i)}${char}${sent.slice(i + 1)}`;
        fc.pre(typo !== sent);
        assert.equal(isWellFormedApiKey(typo), false, typo);
      }),
      { numRuns: 2000 },
    );
  });

  test('any text that is not mxk_ and 49 base62 characters is malformed', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: base62 }).map((s) => `mxk_${s}`),
        ),
        (text) => {
          if (!/^mxk_[0-9A-Za-z]{49}$/.test(text)) assert.equal(isWellFormedApiKey(text), false, text);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('a key or a service token in any text, any of its characters percent-encoded once or twice, is redacted', () => {
    const credential = fc.oneof(
      key,
      fc.constant(null).map(() => generateServiceToken()),
    );
    const around = fc.string({ unit: fc.constantFrom(...'abc%ZZ&=?/é%E0%A4 ') });
    fc.assert(
      fc.property(
        credential,
        around,
        around,
        fc.array(fc.integer({ min: 0, max: 2 })),
        (sent, before, after, encodings) => {
          const encoded = [...sent]
            .map((char, i) => {
              const times = encodings[i % Math.max(1, encodings.length)] ?? 0;
              const once = `%${char.charCodeAt(0).toString(16).toUpperCase()}`;
              return times === 0 ? char : times === 1 ? once : once.replace('%', '%25');
            })
            .join('');
          const logged = redactApiKeys(`${before}${encoded}${after}`);
          assert.ok(!logged.includes(sent.slice(4, 24)), logged);
        },
      ),
      RUNS,
    );
  });
});
