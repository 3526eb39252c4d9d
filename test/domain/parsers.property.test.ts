import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { generateApiKey, isWellFormedApiKey, redactApiKeys } from '../../src/domain/api-key.js';
import { createCursorCodec } from '../../src/domain/cursor.js';
import { formatInstant, parseInstant } from '../../src/domain/instant.js';
import { MAX_LIMIT, parseMealsQuery } from '../../src/domain/meals-query.js';
import { AppError } from '../../src/errors.js';

// Property-based tests of every parser of the API's input (issue 10, item 12): instants, limit,
// cursor, key and the query string, each against a model written from CONTRACT.md. fast-check
// shrinks any counterexample to the smallest it can find and prints its seed to replay it.

const RUNS = { numRuns: 500 };
const FIRST_DAY = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_MS = Date.parse('9999-12-31T23:59:59.999Z');
const instant = fc.integer({ min: FIRST_DAY, max: LAST_MS });
const noCursor = () => undefined;

/** Every character of `text` percent-encoded, or as it is, as `encoded` chooses per character. */
function partlyEncoded(text: string, encoded: readonly boolean[]): string {
  return [...text]
    .map((char, i) =>
      encoded[i % Math.max(1, encoded.length)]
        ? encodeURIComponent(char).replace(/^[A-Za-z0-9]$/, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
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

  test('a key in any text, any of its characters percent-encoded once or twice, is redacted', () => {
    const around = fc.string({ unit: fc.constantFrom(...'abc%ZZ&=?/é%E0%A4 ') });
    fc.assert(
      fc.property(key, around, around, fc.array(fc.integer({ min: 0, max: 2 })), (sent, before, after, encodings) => {
        const encoded = [...sent]
          .map((char, i) => {
            const times = encodings[i % Math.max(1, encodings.length)] ?? 0;
            const once = `%${char.charCodeAt(0).toString(16).toUpperCase()}`;
            return times === 0 ? char : times === 1 ? once : once.replace('%', '%25');
          })
          .join('');
        const logged = redactApiKeys(`${before}${encoded}${after}`);
        assert.ok(!logged.includes(sent.slice(4, 24)), logged);
      }),
      RUNS,
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
