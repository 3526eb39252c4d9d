import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readCsv } from '../../src/meals-io/csv-reader.js';

const HEADER =
  'type,date,title,description,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg';
const NUMBERS = '1,2,3,4,5,6,7,8';

function lines(...rows: string[]): string {
  return rows.join('\n');
}

test('each data row is a record of its cells by column name, with the line it starts on', () => {
  const { records, errors } = readCsv(
    lines(HEADER, `lunch,2025-01-01,Soup,hot,${NUMBERS}`, `snack,2025-01-02,,,${NUMBERS}`),
  );
  assert.deepEqual(errors, []);
  assert.equal(records.length, 2);
  assert.equal(records[0]?.line, 2);
  assert.equal(records[1]?.line, 3);
  assert.deepEqual(records[0]?.fields, {
    type: 'lunch',
    date: '2025-01-01',
    title: 'Soup',
    description: 'hot',
    caloriesTotal: '1',
    proteins_g: '2',
    fats_g: '3',
    carbs_g: '4',
    fibers_g: '5',
    sodium_mg: '6',
    iron_mg: '7',
    calcium_mg: '8',
  });
  assert.equal(records[1]?.fields.title, '');
});

test('quoted fields keep commas, doubled quotes and line breaks, and a record spanning lines is numbered by its first', () => {
  const text = [
    `${HEADER}\r\n`,
    `dinner,2025-01-01,"Eggs, ""sunny"" side","line one\r\nline two\r\nline three",${NUMBERS}\r\n`,
    `lunch,2025-01-01,"a\nb",,${NUMBERS}\r\n`,
    `snack,2025-01-01,plain,,${NUMBERS}\r\n`,
  ].join('');
  const { records, errors } = readCsv(text);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    records.map((r) => [r.line, r.fields.title, r.fields.description]),
    [
      [2, 'Eggs, "sunny" side', 'line one\r\nline two\r\nline three'],
      [5, 'a\nb', ''],
      [7, 'plain', ''],
    ],
  );
});

test('blank lines are skipped but still counted, and the header may follow some', () => {
  const { records, errors } = readCsv(`\n\n${HEADER}\n\n${`lunch,2025-01-01,x,y,${NUMBERS}`}\r\n\r\n`);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    records.map((r) => r.line),
    [5],
  );
});

test('columns may come in any order, id and modifiedAt may be added, and id and modifiedAt may be left out', () => {
  const header = `modifiedAt,calcium_mg,id,${HEADER.split(',').slice(0, 11).join(',')}`;
  const { records, errors } = readCsv(lines(header, `2020-01-01,9,m_1,lunch,2025-01-01,t,d,1,2,3,4,5,6,7`));
  assert.deepEqual(errors, []);
  assert.equal(records[0]?.fields.id, 'm_1');
  assert.equal(records[0]?.fields.calcium_mg, '9');
  assert.equal(records[0]?.fields.iron_mg, '7');
});

test('a sourceVersion column may be added beside the Meal fields (docs/cli.md#formats)', () => {
  const { records, errors } = readCsv(lines(`${HEADER},sourceVersion`, `lunch,2025-01-01,t,d,1,2,3,4,5,6,7,8,42`));
  assert.deepEqual(errors, []);
  assert.equal(records[0]?.fields.sourceVersion, '42');
});

test('an unknown, repeated or missing column is a fault of the header line and no record is read', () => {
  assert.deepEqual(
    readCsv(lines(`${HEADER},calories`, `x`)).errors.map((e) => [e.line, e.message.split(' (')[0]]),
    [[1, 'Unknown column "calories"']],
  );
  assert.deepEqual(readCsv(`${HEADER},title\n`).errors, [{ line: 1, message: 'Column "title" appears twice.' }]);
  const { records, errors } = readCsv(lines('type,date,title', 'lunch,2025-01-01,x'));
  assert.deepEqual(records, []);
  assert.deepEqual(errors, [
    {
      line: 1,
      message:
        'Missing columns description, caloriesTotal, proteins_g, fats_g, carbs_g, fibers_g, sodium_mg, iron_mg, calcium_mg.',
    },
  ]);
});

test('a row with too many or too few cells is reported at its line; the rows before it are read', () => {
  const { records, errors } = readCsv(
    lines(HEADER, `lunch,2025-01-01,"a\nb",x,${NUMBERS}`, `lunch,2025-01-01,x,${NUMBERS}`),
  );
  assert.deepEqual(
    records.map((r) => r.line),
    [2],
  );
  assert.deepEqual(errors, [{ line: 4, message: 'The record has 11 fields but the header has 12.' }]);
});

test('broken quoting is reported at the line of the record that holds it', () => {
  const good = `lunch,2025-01-01,x,y,${NUMBERS}`;
  const cases: [string, RegExp][] = [
    [`lunch,2025-01-01,"never closed,y,${NUMBERS}`, /^A quoted field is never closed\.$/],
    [`lunch,2025-01-01,"closed"then,y,${NUMBERS}`, /^A closing quote must be followed by/],
    [`lunch,2025-01-01,half"quoted,y,${NUMBERS}`, /^A quote inside an unquoted field/],
  ];
  for (const [bad, pattern] of cases) {
    const { records, errors } = readCsv(lines(HEADER, good, '', bad, good));
    assert.equal(records.length, 1, bad);
    assert.equal(errors.length, 1, bad);
    assert.equal(errors[0]?.line, 4, bad);
    assert.match(errors[0]?.message ?? '', pattern);
  }
});

test('an empty input, or a header alone, has no records and no faults', () => {
  assert.deepEqual(readCsv(''), { records: [], errors: [] });
  assert.deepEqual(readCsv(`${HEADER}\r\n`), { records: [], errors: [] });
});

test('a record past 1 MiB is a fault at the line it starts on, and the longest valid meal is not one', () => {
  // A quote never closed: the rest of the file would be one field.
  const rest = Array.from({ length: 40_000 }, (_, i) => `lunch,2025-01-01,t${i},d,${NUMBERS}`).join('\n');
  const open = readCsv(lines(HEADER, `lunch,2025-01-01,x,y,${NUMBERS}`, `lunch,2025-01-01,"open,y,${NUMBERS}`, rest));
  assert.equal(open.records.length, 1);
  assert.deepEqual(open.errors, [
    { line: 3, message: 'A record is longer than 1 MiB (is a quoted field never closed?).' },
  ]);

  // The longest a meal's texts can be: 10 000 characters each, four bytes of UTF-8 apiece (a
  // quote, written doubled, is two): about 80 kB, a thirteenth of the bound.
  const text = `${'😀'.repeat(9_000)}${'"'.repeat(1_000)}`;
  const cell = `"${text.replaceAll('"', '""')}"`;
  const valid = readCsv(lines(HEADER, `lunch,2025-01-01,${cell},${cell},${NUMBERS}`));
  assert.deepEqual(valid.errors, []);
  assert.equal(valid.records[0]?.fields.title, text);
});
