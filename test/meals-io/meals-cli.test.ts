import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { CONTRACT_MEAL_FIELDS } from '../support/contract.js';
import { makeTempDir, runCli } from './cli-harness.js';

const temp = makeTempDir();
const db = path.join(temp.dir, 'meal-export.db');
let userCount = 0;

after(() => temp.remove());

function newUser(): string {
  userCount += 1;
  return `u_cli_${userCount}`;
}

function record(id: string, extra: Record<string, unknown> = {}) {
  return { id, title: `title ${id}`, description: '', type: 'lunch', date: '2025-03-01T12:00:00.000Z', ...extra };
}

function jsonl(records: readonly object[]): string {
  return `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
}

async function meals(...args: string[]) {
  return runCli(['meals', ...args, '--db', db]);
}

async function importFile(user: string, name: string, text: string, ...extra: string[]) {
  return meals('import', '--user', user, temp.file(name, text), '--json', ...extra);
}

/** The user's live meals as `meals export --format jsonl` prints them on stdout. */
async function exported(user: string, ...extra: string[]): Promise<Record<string, unknown>[]> {
  const run = await meals('export', '--user', user, '--format', 'jsonl', ...extra);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('meals import', () => {
  test('writes every record in file order and prints exactly {"imported","created","updated","unchanged"}', async () => {
    const user = newUser();
    const run = await importFile(
      user,
      'a.jsonl',
      jsonl([record('i1'), record('i2', { caloriesTotal: 12.5 }), record('i3')]),
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '{"imported":3,"created":3,"updated":0,"unchanged":0}\n');
    const got = await exported(user);
    assert.deepEqual(
      got.map((m) => m.id),
      ['i1', 'i2', 'i3'],
    );
    assert.equal(got[1]?.caloriesTotal, 12.5);
    assert.equal(got[1]?.proteins_g, null);
  });

  test('says in words what it did without --json', async () => {
    const run = await meals('import', '--user', newUser(), temp.file('words.jsonl', jsonl([record('w1')])));
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'imported 1 meal (1 created, 0 updated, 0 unchanged)\n');
  });

  test('updates the meals whose ids exist and counts them as updated', async () => {
    const user = newUser();
    await importFile(user, 'b1.jsonl', jsonl([record('u1'), record('u2')]));
    const run = await importFile(user, 'b2.jsonl', jsonl([record('u1', { title: 'changed' }), record('u3')]));
    assert.equal(run.stdout, '{"imported":2,"created":1,"updated":1,"unchanged":0}\n');
    const got = await exported(user);
    assert.deepEqual(
      got.map((m) => [m.id, m.title]),
      [
        ['u2', 'title u2'],
        ['u1', 'changed'],
        ['u3', 'title u3'],
      ],
    );
  });

  test('re-imported, a file changes nothing: it prints unchanged N and every meal keeps its modifiedAt', async () => {
    const user = newUser();
    const file = jsonl([record('n1', { caloriesTotal: 0 }), record('n2', { fats_g: null }), record('n3')]);
    assert.equal((await importFile(user, 'n.jsonl', file)).code, 0);
    const before = await exported(user);
    const again = await importFile(user, 'n-again.jsonl', file);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, '{"imported":3,"created":0,"updated":0,"unchanged":3}\n');
    assert.deepEqual(await exported(user), before, 'the same meals, the same modifiedAt');

    const words = await meals('import', '--user', user, temp.file('n-words.jsonl', file));
    assert.equal(words.stdout, 'imported 3 meals (0 created, 0 updated, 3 unchanged)\n', words.stderr);
    // The app's CSV export, imported back: the same meals (its modifiedAt column is ignored).
    const csv = path.join(temp.dir, 'n-export.csv');
    assert.equal((await meals('export', '--user', user, '--out', csv)).code, 0);
    const roundTrip = await meals('import', '--user', user, csv, '--json');
    assert.equal(roundTrip.stdout, '{"imported":3,"created":0,"updated":0,"unchanged":3}\n', roundTrip.stderr);
    assert.deepEqual(await exported(user), before);
    // One field changed (a number where null was), a new meal, and a record twice: only what
    // changes is written, the repeat equal to what the first wrote is unchanged.
    const mixed = jsonl([record('n1', { caloriesTotal: 0 }), record('n2', { fats_g: 0 }), record('n4'), record('n4')]);
    const run = await importFile(user, 'n-mixed.jsonl', mixed);
    assert.equal(run.stdout, '{"imported":4,"created":1,"updated":1,"unchanged":2}\n', run.stderr);
    const after = await exported(user);
    assert.deepEqual(
      after.map((m) => [m.id, m.modifiedAt]),
      [
        ['n1', before[0]?.modifiedAt],
        ['n3', before[2]?.modifiedAt],
        ['n2', after[2]?.modifiedAt],
        ['n4', after[3]?.modifiedAt],
      ],
    );
    assert.ok(String(after[2]?.modifiedAt) > String(before[2]?.modifiedAt), 'the changed meal moved to the end');
    assert.equal(after[2]?.fats_g, 0);
  });

  test('with a bad record writes nothing and names the first bad line and how many more there are', async () => {
    const user = newUser();
    const text = [
      JSON.stringify(record('g1')),
      '',
      JSON.stringify(record('g2')),
      JSON.stringify(record('g3', { type: 'brunch' })),
      '{"id": "g4",',
      JSON.stringify(record('g5')),
    ].join('\n');
    const run = await importFile(user, 'bad.jsonl', text);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.equal(
      run.stderr,
      'meal-export: Line 4: type must be one of breakfast, lunch, dinner, snack, got "brunch" (and 1 more bad record).\n',
    );
    assert.deepEqual(await exported(user), []);
  });

  test('reads CSV with quoted multi-line fields and reports a bad row by the line it starts on', async () => {
    const user = newUser();
    const header =
      'id,type,date,title,description,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg';
    const good = `c1,dinner,2025-03-01T18:00:00Z,"Eggs, ""sunny"" side","one\r\ntwo",350.5,,,,,,,\r\n`;
    const bad = 'c2,dinner,2025-03-01T18:00:00Z,x,y,abc,,,,,,,\r\n';
    const failed = await importFile(user, 'bad.csv', `${header}\r\n${good}${bad}`);
    assert.equal(failed.code, 1);
    assert.equal(failed.stderr, 'meal-export: Line 4: caloriesTotal must be a number or empty, got "abc".\n');
    assert.deepEqual(await exported(user), []);

    const run = await importFile(user, 'good.csv', `${header}\r\n${good}`);
    assert.equal(run.stdout, '{"imported":1,"created":1,"updated":0,"unchanged":0}\n', run.stderr);
    const [meal] = await exported(user);
    assert.equal(meal?.title, 'Eggs, "sunny" side');
    assert.equal(meal?.description, 'one\r\ntwo');
    assert.equal(meal?.caloriesTotal, 350.5);
    assert.equal(meal?.fats_g, null);
  });

  test('refuses an id that belongs to another user, with its line, and writes nothing', async () => {
    const owner = newUser();
    const other = newUser();
    await importFile(owner, 'own.jsonl', jsonl([record('shared-id')]));
    const run = await importFile(
      other,
      'steal.jsonl',
      jsonl([record('fresh'), record('shared-id', { title: 'mine now' })]),
    );
    assert.equal(run.code, 1);
    assert.equal(run.stderr, 'meal-export: Line 2: id "shared-id" belongs to another user.\n');
    assert.deepEqual(await exported(other), []);
    assert.equal((await exported(owner))[0]?.title, 'title shared-id');
  });

  test('reads stdin with - and --format, makes ids for records without one, and accepts an empty input', async () => {
    const user = newUser();
    const run = await runCli(['meals', 'import', '--user', user, '-', '--format', 'jsonl', '--db', db, '--json'], {
      input: jsonl([{ type: 'snack', date: '2025-03-01T00:00:00Z' }]),
    });
    assert.equal(run.stdout, '{"imported":1,"created":1,"updated":0,"unchanged":0}\n', run.stderr);
    assert.match(String((await exported(user))[0]?.id), /^m_[0-9A-Za-z]{22}$/);
    const empty = await importFile(user, 'empty.jsonl', '');
    assert.equal(empty.stdout, '{"imported":0,"created":0,"updated":0,"unchanged":0}\n', empty.stderr);
  });

  test('needs --format for stdin and for a file whose extension says nothing, exiting 2', async () => {
    const stdin = await meals('import', '--user', 'u', '-');
    assert.equal(stdin.code, 2);
    assert.match(stdin.stderr, /--format/);
    const txt = await meals('import', '--user', 'u', temp.file('meals.txt', ''));
    assert.equal(txt.code, 2);
    assert.match(txt.stderr, /--format/);
  });
});

const NUMERIC_COLUMNS = 'caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg';

describe('meals import: utcOffset (docs/cli.md#formats)', () => {
  test("a CSV's utcOffset column is each meal's offset; an empty cell takes the date's, a file without the column imports as before", async () => {
    const user = newUser();
    const numbers = ',,,,,,,,';
    const withColumn = [
      `id,type,date,utcOffset,title,description,${NUMERIC_COLUMNS}`,
      `uo-c1,dinner,2026-11-26T07:30:00Z,-08:00,given beside a UTC date,${numbers}`,
      `uo-c2,snack,2026-11-25T23:30:00+09:00,,from the date,${numbers}`,
      `uo-c3,lunch,2026-11-25T12:00:00Z,,none,${numbers}`,
      '',
    ].join('\r\n');
    const run = await importFile(user, 'offsets.csv', withColumn);
    assert.equal(run.code, 0, run.stderr);
    const old =
      'id,type,date,title,description,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg\r\nuo-c4,lunch,2026-11-25T12:00:00+01:00,old layout,,,,,,,,,\r\n';
    assert.equal((await importFile(user, 'old.csv', old)).code, 0);
    const meals = Object.fromEntries((await exported(user)).map((m) => [m.id, [m.date, m.utcOffset]]));
    assert.deepEqual(meals, {
      'uo-c1': ['2026-11-26T07:30:00.000Z', '-08:00'],
      'uo-c2': ['2026-11-25T14:30:00.000Z', '+09:00'],
      'uo-c3': ['2026-11-25T12:00:00.000Z', null],
      'uo-c4': ['2026-11-25T11:00:00.000Z', '+01:00'],
    });
  });

  test('a bad utcOffset names its line and the field, and nothing of the file is written', async () => {
    const user = newUser();
    const text = jsonl([record('uo-b1'), record('uo-b2', { utcOffset: '+15:00' })]);
    const run = await importFile(user, 'bad.jsonl', text);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /Line 2: utcOffset must be an offset from UTC ±HH:MM, at most 14 hours/);
    assert.deepEqual(await exported(user), []);
  });

  test("a utcOffset unlike the offset written in date is refused by line, naming utcOffset; beside Z it is the meal's", async () => {
    const user = newUser();
    const clash = record('uo-x2', { date: '2025-03-01T10:00:00+01:00', utcOffset: '+05:30' });
    const run = await importFile(user, 'clash.jsonl', jsonl([record('uo-x1'), clash]));
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      'meal-export: Line 2: utcOffset must be the offset written in date (+01:00), or absent, got "+05:30".\n',
    );
    assert.deepEqual(await exported(user), []);
    const utc = record('uo-x3', { date: '2025-03-01T10:00:00Z', utcOffset: '+05:30' });
    assert.equal((await importFile(user, 'utc.jsonl', jsonl([utc]))).code, 0);
    assert.deepEqual(
      (await exported(user)).map((m) => m.utcOffset),
      ['+05:30'],
    );
  });

  test('lines a page or a GET answered import as they are: modifiedAt ignored, deleted false, sourceVersion null', async () => {
    const user = newUser();
    assert.equal((await importFile(user, 'first.jsonl', jsonl([record('rb-1')]))).code, 0);
    const [read] = await exported(user);
    const again = jsonl([{ ...read, deleted: false, sourceVersion: null, modifiedAt: '2000-01-01T00:00:00.000Z' }]);
    const run = await importFile(user, 'again.jsonl', again);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(await exported(user), [read], 'equal in every field: unchanged, its modifiedAt kept');
    const tombstone = await importFile(user, 'gone.jsonl', jsonl([{ ...read, deleted: true }]));
    assert.equal(
      tombstone.stderr,
      'meal-export: Line 1: deleted must be false or absent (a delete removes a meal), got true.\n',
    );
  });
});

describe('meals delete', () => {
  test('removes a meal from exports, exits 0 again when repeated, and exits 1 for an unknown id', async () => {
    const user = newUser();
    await importFile(user, 'd.jsonl', jsonl([record('d1'), record('d2')]));
    const first = await meals('delete', '--user', user, 'd1', '--json');
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, '{"id":"d1","deleted":true}\n');
    assert.deepEqual(
      (await exported(user)).map((m) => m.id),
      ['d2'],
    );
    const again = await meals('delete', '--user', user, 'd1', '--json');
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, '{"id":"d1","deleted":true}\n');
    const unknown = await meals('delete', '--user', user, 'nope');
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, `meal-export: no meal "nope" for user "${user}"\n`);
    const foreign = await meals('delete', '--user', newUser(), 'd2');
    assert.equal(foreign.code, 1, "another user's meal is not found");
  });

  test('brings a deleted meal back to life when it is imported again', async () => {
    const user = newUser();
    await importFile(user, 'r1.jsonl', jsonl([record('r1')]));
    await meals('delete', '--user', user, 'r1');
    const run = await importFile(user, 'r2.jsonl', jsonl([record('r1', { title: 'back' })]));
    assert.equal(run.stdout, '{"imported":1,"created":0,"updated":1,"unchanged":0}\n');
    assert.equal((await exported(user))[0]?.title, 'back');
  });
});

describe('meals prune', () => {
  test('removes tombstones past --tombstone-days (default 30), never live meals, and prints {"pruned"}', async () => {
    const own = path.join(temp.dir, 'prune.db');
    const run = (...args: string[]) => runCli(['meals', ...args, '--db', own]);
    const user = newUser();
    const input = temp.file('p.jsonl', jsonl([record('p1'), record('p2'), record('p3')]));
    assert.equal((await run('import', '--user', user, input)).code, 0);
    await run('delete', '--user', user, 'p1');
    await run('delete', '--user', user, 'p2');

    assert.equal((await run('prune', '--json')).stdout, '{"pruned":0}\n', 'fresh tombstones are kept 30 days');
    assert.equal((await run('prune', '--tombstone-days', '3650', '--json')).stdout, '{"pruned":0}\n');
    const now = await run('prune', '--tombstone-days', '0', '--json');
    assert.equal(now.code, 0, now.stderr);
    assert.equal(now.stdout, '{"pruned":2}\n');
    assert.equal((await run('prune', '--tombstone-days', '0')).stdout, 'pruned 0 tombstones\n');
    const live = await runCli(['meals', 'export', '--user', user, '--format', 'jsonl', '--db', own]);
    assert.deepEqual(
      live.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
      ['p3'],
    );
  });

  test('--tombstone-days outside 0 to 3650 is a usage error (exit 2) for prune and serve', async () => {
    for (const value of ['3651', '-1', '1.5', 'x', '']) {
      for (const command of [['meals', 'prune'], ['serve']]) {
        const run = await runCli([...command, `--tombstone-days=${value}`, '--db', db]);
        assert.equal(run.code, 2, `${command.join(' ')} --tombstone-days ${JSON.stringify(value)}: ${run.stderr}`);
        assert.match(run.stderr, /^meal-export: --tombstone-days must be a whole number from 0 to 3650/);
      }
    }
  });
});

describe('meals export', () => {
  test('--out file.csv writes the CSV layout atomically and prints {"exported","out"}', async () => {
    const user = newUser();
    const records = [
      record('e1', { title: 'Eggs, "sunny" side', caloriesTotal: 350.5, iron_mg: 0 }),
      record('e2', { description: 'a\nb', date: '2025-03-01T13:30:00+01:00' }),
    ];
    await importFile(user, 'e.jsonl', jsonl(records));
    const folder = path.join(temp.dir, 'out-csv');
    fs.mkdirSync(folder);
    const out = path.join(folder, 'meals.csv');
    const run = await meals('export', '--user', user, '--out', out, '--json');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${JSON.stringify({ exported: 2, out })}\n`);
    assert.deepEqual(fs.readdirSync(folder), ['meals.csv'], 'no temporary file is left behind');
    const [modified1, modified2] = (await exported(user)).map((m) => m.modifiedAt);
    assert.equal(
      fs.readFileSync(out, 'utf8'),
      'id,description,title,type,date,utcOffset,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg,modifiedAt\r\n' +
        `e1,,"Eggs, ""sunny"" side",lunch,2025-03-01T12:00:00.000Z,,350.5,,,,,,0,,${modified1}\r\n` +
        `e2,"a\nb",title e2,lunch,2025-03-01T12:30:00.000Z,+01:00,,,,,,,,,${modified2}\r\n`,
    );
  });

  test('prints JSON Lines on stdout, one meal per line in feed order, and --since is inclusive', async () => {
    const user = newUser();
    await importFile(user, 's1.jsonl', jsonl([record('s1'), record('s2')]));
    await importFile(user, 's2.jsonl', jsonl([record('s3'), record('s1', { title: 'moved last' })]));
    const all = await exported(user);
    assert.deepEqual(
      all.map((m) => m.id),
      ['s2', 's3', 's1'],
    );
    assert.deepEqual(Object.keys(all[0] ?? {}), CONTRACT_MEAL_FIELDS);
    const pivot = String(all[1]?.modifiedAt);
    assert.deepEqual(
      (await exported(user, '--since', pivot)).map((m) => m.id),
      ['s3', 's1'],
    );
    const later = new Date(Date.parse(pivot) + 1).toISOString();
    assert.deepEqual(
      (await exported(user, '--since', later)).map((m) => m.id),
      ['s1'],
    );
  });

  test('takes the format from --out, else CSV', async () => {
    const user = newUser();
    await importFile(user, 'f.jsonl', jsonl([record('f1')]));
    const out = path.join(temp.dir, 'f-export.ndjson');
    await meals('export', '--user', user, '--out', out);
    assert.equal(JSON.parse(fs.readFileSync(out, 'utf8')).id, 'f1');
    const stdout = await meals('export', '--user', user);
    assert.match(stdout.stdout, /^id,description,title,/);
  });

  test('--for-spreadsheet adds a byte order mark and guards formula cells; without it the CSV stays exact', async () => {
    const user = newUser();
    const titles = ['=SUM(A1:A9)', "+cmd|' /C calc'!A0", 'Crème brûlée'];
    // A description of "-5" is text, so it is guarded; the number 350 is not.
    const records = titles.map((title, i) => record(`x${i}`, { title, description: '-5', caloriesTotal: 350 }));
    assert.equal((await importFile(user, 'x.jsonl', jsonl(records))).code, 0);
    const [plain, guarded] = [
      await meals('export', '--user', user),
      await meals('export', '--user', user, '--for-spreadsheet'),
    ];
    assert.equal(guarded.code, 0, guarded.stderr);
    const modified = (await exported(user)).map((m) => m.modifiedAt);
    // No offset (the dates are Z): empty utcOffset; the spreadsheet form's local columns hold the UTC date and time.
    const rows = (cells: readonly string[], dash = '', offsetCells = ',,') =>
      cells
        .map(
          (title, i) =>
            `x${i},${dash}-5,${title},lunch,2025-03-01T12:00:00.000Z${offsetCells}350,,,,,,,,${modified[i]}\r\n`,
        )
        .join('');
    const header =
      'id,description,title,type,date,utcOffset,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg,modifiedAt\r\n';
    assert.equal(plain.stdout, header + rows(titles), 'byte for byte as before, for programs');
    assert.equal(
      guarded.stdout,
      `\uFEFF${header.replace(',utcOffset,', ',utcOffset,localDate,localTime,')}${rows(["'=SUM(A1:A9)", "'+cmd|' /C calc'!A0", 'Crème brûlée'], "'", ',,2025-03-01,12:00,')}`,
    );
    const out = path.join(temp.dir, 'x-export.csv');
    assert.equal((await meals('export', '--user', user, '--for-spreadsheet', '--out', out)).code, 0);
    assert.deepEqual([...fs.readFileSync(out).subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assert.equal(fs.readFileSync(out, 'utf8'), guarded.stdout);
  });

  test('refuses a bad --since, a bad --format, a missing --user or subcommand with exit 2', async () => {
    const cases = [
      ['export', '--user', 'u', '--since', '2025-02-30'],
      ['export', '--user', 'u', '--format', 'xml'],
      ['export', '--user', 'u', '--format', 'jsonl', '--for-spreadsheet'],
      ['export'],
      ['import', '--user', 'u'],
      ['frobnicate'],
      [],
    ];
    for (const args of cases) {
      const run = await meals(...args);
      assert.equal(run.code, 2, `meals ${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /^meal-export: /);
    }
  });
});
