import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Meal } from '../../src/domain/meal.js';
import { readCsv } from '../../src/meals-io/csv-reader.js';
import { CSV_HEADER, csvField, csvHeader, csvRow } from '../../src/meals-io/csv-writer.js';
import { parseMealRecord } from '../../src/meals-io/meal-record.js';

const MEAL: Meal = {
  id: 'm_1',
  description: 'plain',
  title: 'Toast',
  type: 'breakfast',
  date: Date.UTC(2025, 2, 1, 7, 5, 9, 12),
  utcOffset: '+01:00',
  caloriesTotal: 350.5,
  proteins_g: 0,
  fats_g: null,
  carbs_g: 1e21,
  fibers_g: 0.1,
  sodium_mg: null,
  iron_mg: 2.25,
  calcium_mg: 120,
  modifiedAt: Date.UTC(2025, 5, 1),
};

test('the header is the Meal fields in contract order with modifiedAt last, ending in CRLF', () => {
  assert.equal(
    CSV_HEADER,
    'id,description,title,type,date,utcOffset,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg,modifiedAt\r\n',
  );
});

test('a row has dates as YYYY-MM-DDTHH:mm:ss.sssZ, numbers as JSON writes them and null as an empty field', () => {
  assert.equal(
    csvRow(MEAL),
    'm_1,plain,Toast,breakfast,2025-03-01T07:05:09.012Z,+01:00,350.5,0,,1e+21,0.1,,2.25,120,2025-06-01T00:00:00.000Z\r\n',
  );
  assert.equal(csvRow({ ...MEAL, utcOffset: null }).split(',')[5], '', 'an unknown offset is an empty field');
});

test('a field is quoted, with its quotes doubled, only when it holds a comma, a quote, CR or LF', () => {
  assert.equal(csvField('plain text'), 'plain text');
  assert.equal(csvField('Eggs, "sunny" side'), '"Eggs, ""sunny"" side"');
  assert.equal(csvField('a\nb'), '"a\nb"');
  assert.equal(csvField('a\rb'), '"a\rb"');
  assert.equal(csvField('"'), '""""');
  assert.equal(csvField(''), '');
});

test('values that a spreadsheet would take for a formula are written unchanged', () => {
  assert.equal(csvField('=1+1'), '=1+1');
  assert.equal(csvRow({ ...MEAL, title: '@SUM(A1)' }).split(',')[2], '@SUM(A1)');
  assert.equal(
    csvRow({ ...MEAL, title: '@SUM(A1)' }, { forSpreadsheet: false }),
    csvRow({ ...MEAL, title: '@SUM(A1)' }),
  );
  assert.equal(csvHeader(), CSV_HEADER, 'no byte order mark');
});

test('the spreadsheet form starts with a UTF-8 byte order mark, and has localDate and localTime after utcOffset', () => {
  assert.equal(
    csvHeader({ forSpreadsheet: true }),
    '\uFEFFid,description,title,type,date,utcOffset,localDate,localTime,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg,modifiedAt\r\n',
  );
  assert.deepEqual([...Buffer.from(csvHeader({ forSpreadsheet: true }), 'utf8').subarray(0, 3)], [0xef, 0xbb, 0xbf]);
});

test("the spreadsheet form puts ' before a text cell that starts with =, +, -, @, a tab or a CR, and only there", () => {
  const row = (meal: Partial<Meal>) => csvRow({ ...MEAL, ...meal }, { forSpreadsheet: true });
  assert.equal(
    row({ id: '-m', description: '=SUM(A1:A9)', title: "+cmd|' /C calc'!A0" }),
    "'-m,'=SUM(A1:A9),'+cmd|' /C calc'!A0,breakfast,2025-03-01T07:05:09.012Z,'+01:00,2025-03-01,08:05,350.5,0,,1e+21,0.1,,2.25,120,2025-06-01T00:00:00.000Z\r\n",
  );
  assert.equal(row({ title: '@SUM(A1)' }).split(',')[2], "'@SUM(A1)");
  assert.equal(row({ title: '\tx' }).split(',')[2], "'\tx");
  assert.equal(row({ title: '\rx' }).split(',')[2], `"'\rx"`, 'still quoted for its CR');
  assert.equal(row({ title: '=1,2' }).split('",')[0], `m_1,plain,"'=1,2`, 'guarded, then quoted');
  for (const plain of ['Crème brûlée', 'a=b', ' =1', "'quoted", '', '1-2']) {
    assert.equal(
      row({ title: plain }).split(',')[2],
      csvRow({ ...MEAL, title: plain }).split(',')[2],
      JSON.stringify(plain),
    );
  }
});

test('the spreadsheet form leaves numbers alone: a negative number is a number, not a formula', () => {
  const negative = { ...MEAL, caloriesTotal: -5, proteins_g: -0.5, fats_g: -1e21 };
  assert.match(csvRow(negative, { forSpreadsheet: true }), /,-5,-0\.5,-1e\+21,/);
});

test("the spreadsheet form's localDate and localTime are the person's, across UTC midnight both ways, and the UTC ones without an offset", () => {
  const local = (date: number, utcOffset: string | null) =>
    csvRow({ ...MEAL, date, utcOffset }, { forSpreadsheet: true })
      .split(',')
      .slice(4, 8);
  assert.deepEqual(local(Date.UTC(2026, 10, 26, 3, 30), '-08:00'), [
    '2026-11-26T03:30:00.000Z',
    "'-08:00",
    '2026-11-25',
    '19:30',
  ]);
  assert.deepEqual(local(Date.UTC(2026, 10, 25, 15, 0), '+09:00'), [
    '2026-11-25T15:00:00.000Z',
    "'+09:00",
    '2026-11-26',
    '00:00',
  ]);
  assert.deepEqual(local(Date.UTC(2026, 10, 25, 18, 20), '+05:45'), [
    '2026-11-25T18:20:00.000Z',
    "'+05:45",
    '2026-11-26',
    '00:05',
  ]);
  // Unknown offset: the UTC day, as the page's range counts the meal, so grouping by localDate loses none.
  assert.deepEqual(local(Date.UTC(2026, 10, 25, 23, 30), null), [
    '2026-11-25T23:30:00.000Z',
    '',
    '2026-11-25',
    '23:30',
  ]);
});

test('an exported row reads back through the importer as the same meal', () => {
  const tricky: Meal = { ...MEAL, id: 'm,"2"', title: 'Eggs, "sunny" side', description: 'line one\r\nline two\nend,' };
  const text = CSV_HEADER + csvRow(MEAL) + csvRow(tricky);
  const { records, errors } = readCsv(text);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    records.map((r) => r.line),
    [2, 3],
  );
  const meals = records.map((r) => parseMealRecord(r.fields, 'csv'));
  const { modifiedAt: _a, ...first } = MEAL;
  const { modifiedAt: _b, ...second } = tricky;
  assert.deepEqual(meals, [
    { ok: true, meal: first },
    { ok: true, meal: second },
  ]);
});
