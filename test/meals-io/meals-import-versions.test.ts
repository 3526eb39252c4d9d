import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { makeTempDir, runCli } from './cli-harness.js';

const temp = makeTempDir();
const db = path.join(temp.dir, 'meal-export.db');
let userCount = 0;

after(() => temp.remove());

function newUser(): string {
  userCount += 1;
  return `u_versions_${userCount}`;
}

function record(id: string, extra: Record<string, unknown> = {}) {
  return { id, title: `title ${id}`, type: 'lunch', date: '2025-03-01T12:00:00.000Z', ...extra };
}

const jsonl = (records: readonly object[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;

async function importFile(user: string, name: string, text: string, ...extra: string[]) {
  return runCli(['meals', 'import', '--user', user, temp.file(name, text), '--db', db, ...extra]);
}

/** The user's live meals' titles, by id, as `meals export --format jsonl` prints them. */
async function titles(user: string): Promise<Record<string, unknown>> {
  const run = await runCli(['meals', 'export', '--user', user, '--format', 'jsonl', '--db', db]);
  assert.equal(run.code, 0, run.stderr);
  const meals = run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { id: string; title: unknown });
  return Object.fromEntries(meals.map((meal) => [meal.id, meal.title]));
}

describe('meals import with sourceVersion (docs/cli.md#importing-meals)', () => {
  test('records not newer than the stored version are stale: the summary gains "stale" only then', async () => {
    const user = newUser();
    const first = jsonl([record('a', { sourceVersion: 5 }), record('b', { sourceVersion: 5 })]);
    const created = await importFile(user, 'v1.jsonl', first, '--json');
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, '{"imported":2,"created":2,"updated":0,"unchanged":0}\n');

    const later = jsonl([
      record('a', { title: 'older', sourceVersion: 4 }),
      record('b', { title: 'newer', sourceVersion: 6 }),
      record('b', { title: 'same version', sourceVersion: 6 }),
      record('c'),
    ]);
    const run = await importFile(user, 'v2.jsonl', later, '--json');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '{"imported":4,"created":1,"updated":1,"unchanged":0,"stale":2}\n');
    assert.deepEqual(await titles(user), { a: 'title a', b: 'newer', c: 'title c' });

    const words = await importFile(user, 'v3.jsonl', jsonl([record('a', { sourceVersion: 4 })]));
    assert.equal(words.code, 0, words.stderr);
    assert.equal(words.stdout, 'imported 1 meal (0 created, 0 updated, 0 unchanged, 1 stale)\n');

    // The same file again is a retry: done already, not overtaken.
    const retry = await importFile(user, 'v4.jsonl', jsonl([record('a', { sourceVersion: 5 })]), '--json');
    assert.equal(retry.code, 0, retry.stderr);
    assert.equal(retry.stdout, '{"imported":1,"created":0,"updated":0,"unchanged":1}\n');
  });

  test('a CSV sourceVersion column is read as digits, an empty cell as none', async () => {
    const user = newUser();
    const header =
      'id,title,description,type,date,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg';
    const row = (id: string, title: string, version: string) =>
      `${id},${title},,lunch,2025-03-01T12:00:00Z,,,,,,,,,${version}`;
    const csv = (...rows: string[]) => `${header},sourceVersion\r\n${rows.join('\r\n')}\r\n`;
    const first = await importFile(user, 'v1.csv', csv(row('x', 'ten', '10'), row('y', 'none', '')), '--json');
    assert.equal(first.stdout, '{"imported":2,"created":2,"updated":0,"unchanged":0}\n', first.stderr);
    const second = await importFile(user, 'v2.csv', csv(row('x', 'nine', '9'), row('y', 'one', '1')), '--json');
    assert.equal(second.stdout, '{"imported":2,"created":0,"updated":1,"unchanged":0,"stale":1}\n', second.stderr);
    assert.deepEqual(await titles(user), { x: 'ten', y: 'one' });
  });

  test('a bad sourceVersion is a bad record, named by its line, and nothing is written', async () => {
    const user = newUser();
    const text = jsonl([record('g1'), record('g2', { sourceVersion: -3 })]);
    const run = await importFile(user, 'bad.jsonl', text, '--json');
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      'meal-export: Line 2: sourceVersion must be an integer from 0 to 9007199254740991, got -3.\n',
    );
    assert.deepEqual(await titles(user), {});
  });
});
