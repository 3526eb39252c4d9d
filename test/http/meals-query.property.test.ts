import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { formatInstant } from '../../src/domain/instant.js';
import { parseMealsQuery } from '../../src/http/meals-query.js';
import { MAX_LIMIT } from '../../src/domain/page-bounds.js';
import { AppError } from '../../src/errors.js';
import { instantMs as instant, RUNS } from '../support/arbitraries.js';

// Property-based tests, against a model written from docs/api.md#the-call: fast-check shrinks
// any counterexample to the smallest it can find and prints the seed that replays it.

const noCursor = () => undefined;

/**
 * `text` as a query writes it: each character as encodeURIComponent writes it or, where
 * `encoded` says so, as %XX escapes of its UTF-8 bytes even when it needs none.
 */
function partlyEncoded(text: string, encoded: readonly boolean[]): string {
  return [...text]
    .map((char, i) =>
      encoded[i % Math.max(1, encoded.length)]
        ? Buffer.from(char, 'utf8').toString('hex').toUpperCase().replace(/../g, '%$&')
        : encodeURIComponent(char),
    )
    .join('');
}
/** The AppError parseMealsQuery throws, as { code, param }; undefined when it accepts. */
function faultOf(rawQuery: string): { code: string; param: string | undefined } | undefined {
  try {
    parseMealsQuery(rawQuery, noCursor);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof AppError, `only AppErrors: ${String(error)}`);
    return { code: error.code, param: error.param };
  }
}
describe('limit', () => {
  const SINCE = 'lastModifiedSince=2025-01-01';

  test('1 to 5000 in ASCII digits, leading zeros allowed, is that limit, whatever the percent-encoding', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_LIMIT }),
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.boolean()),
        (n, zeros, encoded) => {
          const text = `${'0'.repeat(zeros)}${n}`;
          assert.equal(parseMealsQuery(`${SINCE}&limit=${partlyEncoded(text, encoded)}`, noCursor).limit, n);
        },
      ),
      RUNS,
    );
  });

  test('any other text is 400 invalid_parameter naming limit, never clamped', () => {
    const digitsOnly = /^[0-9]+$/;
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0123456789+-.e ,٣') })), (text) => {
        const valid = digitsOnly.test(text) && Number(text) >= 1 && Number(text) <= MAX_LIMIT;
        const fault = faultOf(`${SINCE}&limit=${encodeURIComponent(text)}`);
        if (valid) assert.equal(fault, undefined, text);
        else assert.deepEqual(fault, { code: 'invalid_parameter', param: 'limit' }, text);
      }),
      { numRuns: 2000 },
    );
  });
});
describe('the query string of /v1/meals', () => {
  test('any query string is accepted or refused with the contract’s 400, never thrown on otherwise', () => {
    const parts = fc.constantFrom(
      'lastModifiedSince',
      'limit',
      'cursor',
      'includeDeleted',
      'x',
      '=',
      '&',
      '%',
      '%ZZ',
      '%4',
      '2025-01-01',
      'true',
      '5',
      '+',
      '%E0%A4%A8',
      '%00',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(parts).map((p) => p.join('')),
        ),
        (rawQuery) => {
          const fault = faultOf(rawQuery);
          if (fault !== undefined)
            assert.ok(['missing_parameter', 'invalid_parameter'].includes(fault.code), fault.code);
        },
      ),
      { numRuns: 5000 },
    );
  });

  test('valid parameters in any order, any of their characters percent-encoded, give the same query', () => {
    fc.assert(
      fc.property(
        instant,
        fc.option(fc.integer({ min: 1, max: MAX_LIMIT }), { nil: undefined }),
        fc.option(fc.boolean(), { nil: undefined }),
        fc.array(fc.boolean()),
        fc.nat(),
        (ms, limit, includeDeleted, encoded, rotation) => {
          const params: [string, string][] = [['lastModifiedSince', formatInstant(ms)]];
          if (limit !== undefined) params.push(['limit', String(limit)]);
          if (includeDeleted !== undefined) params.push(['includeDeleted', String(includeDeleted)]);
          const turn = rotation % params.length;
          const ordered = [...params.slice(turn), ...params.slice(0, turn)];
          const raw = ordered
            .map(([name, value]) => `${partlyEncoded(name, encoded)}=${partlyEncoded(value, encoded)}`)
            .join('&');
          assert.deepEqual(
            parseMealsQuery(raw, noCursor),
            {
              lastModifiedSince: ms,
              limit: limit ?? 1000,
              cursor: undefined,
              includeDeleted: includeDeleted ?? false,
              waitSeconds: undefined,
            },
            raw,
          );
        },
      ),
      RUNS,
    );
  });

  test('a parameter given twice is 400 naming it, or the first parameter at fault before it', () => {
    const names = ['lastModifiedSince', 'limit', 'includeDeleted'] as const;
    const good = { lastModifiedSince: '2025-01-01', limit: '5', includeDeleted: 'true' };
    fc.assert(
      fc.property(fc.constantFrom(...names), (twice) => {
        const raw = [...names.map((name) => `${name}=${good[name]}`), `${twice}=${good[twice]}`].join('&');
        assert.deepEqual(faultOf(raw), { code: 'invalid_parameter', param: twice });
      }),
    );
  });
});
