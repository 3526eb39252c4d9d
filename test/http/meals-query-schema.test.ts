import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { formatInstant } from '../../src/domain/instant.js';
import type { FeedPosition } from '../../src/domain/meal.js';
import { parseMealsQuery } from '../../src/http/meals-query.js';
import { MEALS_QUERY_PARAMETERS, type MealsQueryParameter } from '../../src/http/meals-query-rules.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { instantMs, RUNS } from '../support/arbitraries.js';

// The parser and the OpenAPI document the service serves agree, parameter by parameter: a value
// the document's schema allows, written as a client writes it in a query, is accepted with that
// value, and one it refuses is refused. Where they cannot agree, the description says so and the
// cases are listed here: a text no value of the schema's type is written as (`+5`, `TRUE`), a
// text of the pattern that is no date, and a cursor of another key's user.

const GOOD_CURSOR = 'good-cursor';
const POSITION: FeedPosition = { modifiedAt: Date.UTC(2025, 0, 2), id: 'm_1' };
const SINCE = '2025-01-01';

interface Parameter {
  readonly name: string;
  readonly required: boolean;
  readonly schema: object;
}
const document = buildOpenApiDocument('test') as {
  paths: { '/v1/meals': { get: { parameters: Parameter[] }; head: { parameters: Parameter[] } } };
};
const parameters = document.paths['/v1/meals'].get.parameters;
const ajv = new Ajv2020({ allErrors: true });
const schemaAllows = new Map(parameters.map((p) => [p.name, ajv.compile(p.schema)]));

/** The value the parser reads for `name` sent as `text` (with a valid lastModifiedSince); undefined: refused. */
function parsed(name: MealsQueryParameter, text: string): unknown {
  const query = name === 'lastModifiedSince' ? '' : `lastModifiedSince=${SINCE}&`;
  try {
    const result = parseMealsQuery(`${query}${name}=${encodeURIComponent(text)}`, (cursor) =>
      cursor === GOOD_CURSOR ? POSITION : undefined,
    );
    return { ...result, wait: result.waitSeconds }[name];
  } catch {
    return undefined;
  }
}

function allows(name: MealsQueryParameter, value: unknown): boolean {
  const validate = schemaAllows.get(name);
  assert.ok(validate !== undefined, `the document describes ${name}`);
  return validate(value);
}

function schemaType(name: MealsQueryParameter): unknown {
  return (parameters.find((p) => p.name === name)?.schema as { type?: unknown } | undefined)?.type;
}

/** The schema's value for a query text, when the text is how a client writes one. */
function valueOf(name: MealsQueryParameter, text: string): unknown {
  const type = schemaType(name);
  if (type === 'string') return text;
  const value: unknown = type === 'boolean' ? { true: true, false: false }[text] : Number(text);
  return String(value) === text ? value : undefined;
}

/** Examples of every parameter, accepted and refused, from test/http/meals-query.test.ts and more. */
const EXAMPLES: Record<MealsQueryParameter, readonly string[]> = {
  lastModifiedSince: [
    '2025-01-01T00:00:00Z',
    '2025-01-01',
    '2025-01-01T00:00:00+01:00',
    '2025-01-01t00:00:00.123456789z',
    '0000-02-29',
    '2025-01-01T00:00:00',
    '',
    'yesterday',
    '2025-1-1',
    '2025-01-01 00:00:00Z',
    '2025-02-30',
    '2025-13-01',
    '2025-01-01T24:00:00Z',
    '2025-01-01T00:00:00+24:00',
  ],
  limit: ['1', '5000', '1000', '0005', '0', '-1', '+5', '5001', '1.5', '5.0', '1e3', 'abc', ' 5', '', '0x10', '٥'],
  cursor: [GOOD_CURSOR, 'altered', ''],
  includeDeleted: ['true', 'false', 'TRUE', 'True', '1', '0', 'yes', '', 'true '],
  wait: ['1', '120', '0030', '0', '000', '121', '-1', '+5', '1.5', '1e1', ' 5', '', 'abc', '٣'],
};
/** Texts of the schema's pattern that are no instant: the description says they are refused too. */
const NO_SUCH_DATE = ['2025-02-30', '2025-13-01', '2025-01-01T24:00:00Z', '2025-01-01T00:00:00+24:00'];

describe('the parser of /v1/meals and the OpenAPI document', () => {
  test('describe the same parameters, in the order the first one at fault is named', () => {
    assert.deepEqual(
      parameters.map((p) => p.name),
      MEALS_QUERY_PARAMETERS,
    );
    assert.deepEqual(document.paths['/v1/meals'].head.parameters, parameters);
    assert.deepEqual(
      parameters.filter((p) => p.required).map((p) => p.name),
      ['lastModifiedSince'],
    );
  });

  test("agree on what a parameter not sent stands for: the schema's default, or nothing", () => {
    const query = parseMealsQuery(`lastModifiedSince=${SINCE}`, () => undefined);
    const read: Record<string, unknown> = { ...query, wait: query.waitSeconds };
    for (const { name, schema } of parameters.filter((p) => !p.required)) {
      assert.equal(read[name], (schema as { default?: unknown }).default, name);
    }
  });

  test('agree on every example: what the parser accepts the schema allows, and what it refuses the schema refuses or the description explains', () => {
    for (const name of MEALS_QUERY_PARAMETERS) {
      for (const text of EXAMPLES[name]) {
        const label = `${name}=${JSON.stringify(text)}`;
        const value = parsed(name, text);
        const schemaValue = valueOf(name, text);
        if (value !== undefined) {
          // A number or a boolean is read as itself (leading zeros allowed); a text (an instant, a
          // cursor) is read by its rule, and the schema checks the text.
          const isText = schemaType(name) === 'string';
          assert.ok(allows(name, isText ? text : value), `${label}: accepted, not allowed`);
          if (!isText && schemaValue !== undefined) assert.equal(value, schemaValue, label);
        } else if (schemaValue !== undefined && allows(name, schemaValue)) {
          const explained =
            (name === 'lastModifiedSince' && NO_SUCH_DATE.includes(text)) ||
            (name === 'cursor' && text !== GOOD_CURSOR);
          assert.ok(explained, `${label}: refused, yet the schema allows it`);
        }
      }
    }
  });

  test('agree on any number for the whole-number parameters, written as a client writes it', () => {
    const numbers = fc.oneof(
      fc.integer({ min: -10, max: 6000 }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    );
    for (const name of ['limit', 'wait'] as const) {
      fc.assert(
        fc.property(numbers, (n) => {
          const value = parsed(name, String(n));
          assert.equal(value !== undefined, allows(name, n), `${name}=${n}`);
          if (value !== undefined) assert.equal(value, n);
        }),
        { numRuns: 2000 },
      );
    }
  });

  test('agree on any instant the service writes, and the schema allows whatever text the parser accepts', () => {
    fc.assert(
      fc.property(instantMs, (ms) => {
        const text = formatInstant(ms);
        assert.equal(parsed('lastModifiedSince', text), ms);
        assert.ok(allows('lastModifiedSince', text), text);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789-:TZ+.') }), (text) => {
        if (parsed('lastModifiedSince', text) !== undefined) assert.ok(allows('lastModifiedSince', text), text);
      }),
      { numRuns: 2000 },
    );
  });
});
