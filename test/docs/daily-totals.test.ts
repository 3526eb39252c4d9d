import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import BetterSqlite3 from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { cliJson, runCli } from '../support/cli.js';
import { blockAfter, docsPage } from '../support/doc-blocks.js';
import { cleanEnv, makeTempDir, PROJECT_ROOT } from '../support/project.js';
import { pythonMissing } from '../support/python.js';
import { newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';

// The recipe of docs/api.md#daily-totals-by-the-persons-day, four ways, each run as written
// against the service: the meals of the page's table, saved as an app would, come back in
// days that are the person's, around midnight on each side of UTC.
const execFileAsync = promisify(execFile);
const PAGE = 'api.md';
const DOCS = docsPage(PAGE);
const block = (marker: string, language: string) => blockAfter(DOCS, PAGE, marker, language);

/** The page's five meals: an offset written in the date, given beside a UTC date, and none. */
const MEALS = [
  { id: 'sf-late', type: 'dinner', date: '2026-11-25T23:30:00-08:00', caloriesTotal: 500 },
  { id: 'sf-midnight', type: 'snack', date: '2026-11-26T00:30:00-08:00', caloriesTotal: 300 },
  { id: 'tokyo-late', type: 'snack', date: '2026-11-25T23:30:00+09:00', caloriesTotal: 200 },
  { id: 'tokyo-early', type: 'breakfast', date: '2026-11-25T15:30:00Z', utcOffset: '+09:00', caloriesTotal: 100 },
  { id: 'unknown', type: 'lunch', date: '2026-11-25T12:00:00Z', caloriesTotal: 50 },
];
const DAYS = ['2026-11-25 750', '2026-11-26 400'];

describe("docs/api.md: daily totals by the person's day, run", () => {
  let server: ServedApp;
  let key: string;
  let csv: string;
  let prefix: string;
  const work = makeTempDir('daily-totals');

  before(async () => {
    server = await startInProcessServer();
    const userId = newUserId('days');
    prefix = `${userId}-`;
    key = (await server.createKey(userId)).key;
    const input = MEALS.map((meal) => JSON.stringify({ ...meal, id: `${prefix}${meal.id}` })).join('\n');
    await cliJson(['meals', 'import', '--user', userId, '-', '--format', 'jsonl', '--db', server.db], { input });
    // The CSV of `meals export`, as `pull --out meals.csv` writes it too.
    const exported = await runCli(['meals', 'export', '--user', userId, '--db', server.db]);
    assert.equal(exported.code, 0, exported.stderr);
    csv = path.join(work.dir, 'meals.csv');
    writeFileSync(csv, exported.stdout);
  });

  after(async () => {
    await server?.stop();
    work.remove();
  });

  test('the table is what the API answers: date in UTC, utcOffset from the record or its date, null where none', async () => {
    const rows = parse(readFileSync(csv, 'utf8'), { columns: true }) as Record<string, string>[];
    assert.deepEqual(
      rows.map((row) => [row.id?.slice(prefix.length), row.date, row.utcOffset]).sort(),
      [
        ['sf-late', '2026-11-26T07:30:00.000Z', '-08:00'],
        ['sf-midnight', '2026-11-26T08:30:00.000Z', '-08:00'],
        ['tokyo-early', '2026-11-25T15:30:00.000Z', '+09:00'],
        ['tokyo-late', '2026-11-25T14:30:00.000Z', '+09:00'],
        ['unknown', '2026-11-25T12:00:00.000Z', ''],
      ].sort(),
    );
  });

  test('with the SDK: localDateOf over the API', async () => {
    // .mts: an ES module wherever it lies, as in a project with "type": "module" (top-level await).
    const script = path.join(work.dir, 'daily-totals.mts');
    const client = path.join(PROJECT_ROOT, 'src', 'client', 'index.ts');
    writeFileSync(script, block('daily-totals-ts', 'ts').replace("'meal-export-client'", JSON.stringify(client)));
    const env = cleanEnv({
      MEAL_EXPORT_URL: server.url,
      MEAL_EXPORT_API_KEY: key,
      MEAL_EXPORT_CA: path.join(server.dir, 'tls', 'cert.pem'),
    });
    const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', script], {
      cwd: PROJECT_ROOT,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.deepEqual(stdout.trim().split('\n'), DAYS);
  });

  test('in Python with the standard library, over the CSV', { skip: pythonMissing() }, async () => {
    const script = path.join(work.dir, 'daily_totals.py');
    writeFileSync(script, block('daily-totals-py', 'python'));
    const { stdout } = await execFileAsync('python3', [script, csv], { env: cleanEnv(), encoding: 'utf8' });
    assert.deepEqual(stdout.trim().split('\n'), DAYS);
  });

  test("in SQL with SQLite's date functions, over the CSV imported as sqlite3's .import --csv does", () => {
    const db = new BetterSqlite3(':memory:');
    try {
      // .import --csv: a table of TEXT columns named by the header, every cell as text.
      const [header = [], ...rows] = parse(readFileSync(csv, 'utf8')) as string[][];
      db.exec(`CREATE TABLE meals (${header.map((name) => `"${name}" TEXT`).join(', ')})`);
      const insert = db.prepare(`INSERT INTO meals VALUES (${header.map(() => '?').join(', ')})`);
      for (const row of rows) insert.run(...row);
      const days = db.prepare<[], { day: string; kcal: number }>(block('daily-totals-sqlite', 'sql')).all();
      assert.deepEqual(
        days.map(({ day, kcal }) => `${day} ${kcal}`),
        DAYS,
      );
    } finally {
      db.close();
    }
  });

  test("in SQL with DuckDB's read_csv", async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const [setting, query] = block('daily-totals-duckdb', 'sql').replace("'meals.csv'", `'${csv}'`).split(';\n');
      await connection.run(String(setting));
      const reader = await connection.runAndReadAll(String(query));
      const days = reader
        .getRowsJS()
        .map(([day, kcal]) => `${day instanceof Date ? day.toISOString().slice(0, 10) : String(day)} ${String(kcal)}`);
      assert.deepEqual(days, DAYS);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});
