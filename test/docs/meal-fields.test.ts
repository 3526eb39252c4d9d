import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MEAL_FIELD_TABLE, type MealFieldKind } from '../../src/domain/meal-fields.js';
import { docsPage } from '../support/doc-blocks.js';

// docs/api.md's table of Meal fields is written by hand for people; it must say what the table
// of Meal fields (domain/meal-fields.ts) says: the same fields, in the same order, of the same
// JSON types.
const JSON_TYPE: Readonly<Record<MealFieldKind, string>> = {
  id: 'string',
  text: 'string',
  type: 'string',
  instant: 'string',
  clock: 'string',
  offset: 'string or null',
  number: 'number or null',
};

test("docs/api.md's Meal table lists the table of Meal fields, in order, with each field's JSON type", () => {
  const page = docsPage('api.md');
  const table = /<!-- meal-fields -->\s*\n((?:\|.*\n)+)/.exec(page)?.[1];
  assert.ok(table !== undefined, 'docs/api.md has a table after <!-- meal-fields -->');
  const rows = table
    .trim()
    .split('\n')
    .slice(2)
    .map((row) => row.split('|').map((cell) => cell.trim()));
  assert.deepEqual(
    rows.map(([, name, type]) => [name, type]),
    MEAL_FIELD_TABLE.map((field) => [`\`${field.name}\``, JSON_TYPE[field.kind]]),
  );
});
