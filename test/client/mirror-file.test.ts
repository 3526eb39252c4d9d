import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { readMirrorFile, writeMirrorFile } from '../../src/client/pull/mirror-file.js';
import type { Meal } from '../../src/domain/meal.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mirror-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const MEAL: Meal = {
  id: 'm_1',
  description: '-5',
  title: '=SUM(A1:A9)',
  type: 'snack',
  date: Date.UTC(2025, 2, 1, 10),
  utcOffset: null,
  caloriesTotal: 350,
  proteins_g: null,
  fats_g: null,
  carbs_g: null,
  fibers_g: null,
  sodium_mg: null,
  iron_mg: null,
  calcium_mg: null,
  modifiedAt: Date.UTC(2025, 5, 1),
};

test("pull's CSV stays exact for programs: no byte order mark, formulas and all written as they are", async () => {
  const out = path.join(dir, 'meals.csv');
  const meals = [MEAL, { ...MEAL, id: 'm_2', description: '@x', title: "+cmd|' /C calc'!A0" }];
  assert.equal(await writeMirrorFile(out, 'csv', meals), 2);
  assert.equal(
    readFileSync(out, 'utf8'),
    'id,description,title,type,date,utcOffset,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg,modifiedAt\r\n' +
      'm_1,-5,=SUM(A1:A9),snack,2025-03-01T10:00:00.000Z,,350,,,,,,,,2025-06-01T00:00:00.000Z\r\n' +
      "m_2,@x,+cmd|' /C calc'!A0,snack,2025-03-01T10:00:00.000Z,,350,,,,,,,,2025-06-01T00:00:00.000Z\r\n",
  );
  assert.deepEqual(await readMirrorFile(out, 'csv'), meals);
});
