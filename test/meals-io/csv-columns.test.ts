import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvHeader } from '../../src/meals-io/csv-writer.js';

// The CSV's columns up to modifiedAt are promised as they stand (docs/api.md#compatibility): a
// reader by position keeps working when a later field comes, since its column goes after them.
const PROMISED =
  'id,description,title,type,date,utcOffset,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg,modifiedAt';
const SPREADSHEET_PROMISED =
  'id,description,title,type,date,utcOffset,localDate,localTime,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg,modifiedAt';

const columnsOf = (header: string) =>
  header
    .replace(/^\uFEFF/, '')
    .replace(/\r\n$/, '')
    .split(',');

test("the CSV's columns up to modifiedAt are the promised ones, in their order", () => {
  const columns = columnsOf(csvHeader());
  assert.deepEqual(columns.slice(0, columns.indexOf('modifiedAt') + 1), PROMISED.split(','));
});

test("the spreadsheet form's columns up to modifiedAt are the promised ones, in their order", () => {
  const columns = columnsOf(csvHeader({ forSpreadsheet: true }));
  assert.deepEqual(columns.slice(0, columns.indexOf('modifiedAt') + 1), SPREADSHEET_PROMISED.split(','));
});
