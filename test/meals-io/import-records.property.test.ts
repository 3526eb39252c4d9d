import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatInstant } from '../../src/domain/instant.js';
import { MEAL_TYPES, type Meal, NUMERIC_FIELDS } from '../../src/domain/meal.js';
import { readCsv } from '../../src/meals-io/csv-reader.js';
import { CSV_HEADER, csvRow } from '../../src/meals-io/csv-writer.js';
import { readJsonl } from '../../src/meals-io/jsonl-reader.js';
import { parseMealRecord, type RecordSource } from '../../src/meals-io/meal-record.js';
import type { RawRecords } from '../../src/meals-io/raw-record.js';

// Property-based tests of the import parsers: whatever a meal holds, what
// `meals export` writes imports back as the same meal, in CSV and in JSON Lines; any text at
// all is read into records and line-numbered faults, never a crash.

const nutrient = fc.option(fc.double({ min: 0, max: 1e12, noNaN: true, noDefaultInfinity: true }), { nil: null });
/** Any offset of the contract's range, -14:00 to +14:00, or none. */
const utcOffset = fc.option(
  fc.integer({ min: -14 * 60, max: 14 * 60 }).map((minutes) => {
    const size = Math.abs(minutes);
    const two = (n: number) => String(n).padStart(2, '0');
    return `${minutes < 0 ? '-' : '+'}${two(Math.floor(size / 60))}:${two(size % 60)}`;
  }),
  { nil: null },
);
const meal: fc.Arbitrary<Meal> = fc
  .record({
    // Ids of any characters but controls, which an import refuses (meal-record.ts).
    id: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }).filter((id) => !/\p{Cc}/u.test(id)),
    description: fc.string({ unit: 'grapheme', maxLength: 300 }),
    title: fc.oneof(fc.string({ maxLength: 50 }), fc.constantFrom('', '"', ',', '\r\n', ' x ', '=1+2')),
    type: fc.constantFrom(...MEAL_TYPES),
    date: fc.integer({ min: Date.parse('0001-01-01T00:00:00Z'), max: Date.parse('9999-12-31T23:59:59.999Z') }),
    utcOffset,
    modifiedAt: fc.integer({ min: 0, max: Date.parse('9999-12-31T23:59:59.999Z') }),
    nutrients: fc.tuple(...NUMERIC_FIELDS.map(() => nutrient)),
  })
  .map(
    ({ nutrients, ...rest }) =>
      ({
        ...rest,
        ...Object.fromEntries(
          NUMERIC_FIELDS.map((field, i) => [field, nutrients[i] === 0 ? 0 : (nutrients[i] ?? null)]),
        ),
      }) as Meal,
  );

/** The meal content an import makes of a file's records: parsed, or the first fault. */
function imported(read: RawRecords, source: RecordSource): object[] {
  assert.deepEqual(read.errors, []);
  return read.records.map(({ fields }) => {
    const result = parseMealRecord(fields, source);
    assert.ok(result.ok, result.ok ? '' : result.message);
    return { ...result.meal };
  });
}

const contentOf = ({ modifiedAt: _ignored, ...content }: Meal) => ({ ...content });

test('meals written as CSV by meals export import back as the same meals', () => {
  fc.assert(
    fc.property(fc.array(meal, { minLength: 1, maxLength: 5 }), (meals) => {
      const text = `${CSV_HEADER}${meals.map((meal) => csvRow(meal)).join('')}`;
      assert.deepEqual(imported(readCsv(text), 'csv'), meals.map(contentOf));
    }),
    { numRuns: 300 },
  );
});

test('meals written as JSON Lines import back as the same meals, dates in any written form', () => {
  fc.assert(
    fc.property(fc.array(meal, { minLength: 1, maxLength: 5 }), fc.constantFrom('\n', '\r\n'), (meals, eol) => {
      const text = meals
        .map((m) => JSON.stringify({ ...m, date: formatInstant(m.date), modifiedAt: 'ignored' }))
        .join(eol);
      assert.deepEqual(imported(readJsonl(text), 'json'), meals.map(contentOf));
    }),
    { numRuns: 300 },
  );
});

test('any text is read into records and faults on lines that exist, never a crash', () => {
  const csvish = fc.array(
    fc.constantFrom('id', 'type', 'date', ',', '"', '""', '\r\n', '\n', '\r', 'x', 'é', '\u0000', 'snack'),
  );
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        csvish.map((parts) => parts.join('')),
      ),
      (text) => {
        const lineCount = text.split('\n').length;
        for (const [read, source] of [
          [readCsv(text), 'csv'],
          [readJsonl(text), 'json'],
        ] as const) {
          for (const { line } of [...read.errors, ...read.records]) {
            assert.ok(Number.isInteger(line) && line >= 1 && line <= lineCount, `line ${line} of ${lineCount}`);
          }
          for (const record of read.records) {
            const result = parseMealRecord(record.fields, source);
            if (!result.ok) assert.ok(!result.message.includes('\n'), 'a fault is one line');
          }
        }
      },
    ),
    { numRuns: 3000 },
  );
});
