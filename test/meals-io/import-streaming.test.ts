import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { writeMealsFile } from '../support/large-import.js';
import { newPostgresSchema, postgresSkipReason } from '../support/postgres.js';
import { BIN, cleanEnv, PROJECT_ROOT } from '../support/project.js';
import { makeMeal, newUserId } from '../support/server.js';
import { makeTempDir, runCli } from './cli-harness.js';

/**
 * `meals import` streams its records into one transaction (docs/cli.md#memory-and-locking): these
 * files are larger than several of its batches, so what is written before a bad record, a repeated
 * id or another user's id near the end must still be rolled back or counted as when the whole file
 * was checked first (docs/cli.md#all-or-nothing-by-line).
 */

const RECORDS = 20_000;

/** What the store holds for a user, as `meals export` writes it (JSON Lines, with modifiedAt). */
async function exported(db: string, userId: string): Promise<string> {
  const result = await runCli(['meals', 'export', '--user', userId, '--format', 'jsonl', '--db', db]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

async function importFile(db: string, userId: string, file: string) {
  return runCli(['meals', 'import', '--user', userId, file, '--db', db, '--json']);
}

/**
 * A store where the importer already holds meals (two of them also in the file) and another
 * user holds one: what a failed import must leave exactly as it was.
 */
async function prepare(db: string, prefix: string) {
  const importer = newUserId('importer');
  const other = newUserId('other');
  const theirs = `${prefix}_theirs`;
  const mine = [makeMeal(`${prefix}_5`), makeMeal(`${prefix}_15000`), makeMeal()];
  const seeded = await runCli(['meals', 'import', '--user', importer, '-', '--format', 'jsonl', '--db', db], {
    input: `${mine.map((meal) => JSON.stringify(meal)).join('\n')}\n`,
  });
  assert.equal(seeded.code, 0, seeded.stderr);
  const seededOther = await runCli(['meals', 'import', '--user', other, '-', '--format', 'jsonl', '--db', db], {
    input: `${JSON.stringify(makeMeal(theirs))}\n`,
  });
  assert.equal(seededOther.code, 0, seededOther.stderr);
  const before = { importer: await exported(db, importer), other: await exported(db, other) };
  return { importer, other, theirs, before };
}

/** The store-agnostic cases, run on SQLite and on PostgreSQL. */
function runStreamingCases(backend: string, newStore: () => Promise<{ db: string; remove(): Promise<void> }>) {
  test(`on ${backend}, a bad line near the end names its number and leaves the store exactly as before`, async () => {
    const temp = makeTempDir();
    const store = await newStore();
    try {
      const prefix = `bad_${process.pid}_${Date.now().toString(36)}`;
      const { importer, other, before } = await prepare(store.db, prefix);
      const file = path.join(temp.dir, 'meals.jsonl');
      await writeMealsFile(file, RECORDS - 2, prefix);
      appendFileSync(
        file,
        `{"id": "${prefix}_late", "type": "lunch", "date": "2025-03-01T12:00:00Z", "caloriesTotal": -1}\n`,
      );
      appendFileSync(file, `${JSON.stringify(makeMeal(`${prefix}_last`))}\n{"not json\n`);

      const result = await importFile(store.db, importer, file);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stdout, '');
      assert.equal(
        result.stderr,
        `meal-export: Line ${RECORDS - 1}: caloriesTotal must be 0 or more, got -1 (and 1 more bad record).\n`,
      );
      assert.equal(await exported(store.db, importer), before.importer, "the importer's meals as they were");
      assert.equal(await exported(store.db, other), before.other, "the other user's meals as they were");
    } finally {
      temp.remove();
      await store.remove();
    }
  });

  test(`on ${backend}, another user's id far into the file is refused with its line, after the bad records`, async () => {
    const temp = makeTempDir();
    const store = await newStore();
    try {
      const prefix = `foreign_${process.pid}_${Date.now().toString(36)}`;
      const { importer, theirs, before } = await prepare(store.db, prefix);
      const file = path.join(temp.dir, 'meals.jsonl');
      await writeMealsFile(file, 12_344, prefix);
      appendFileSync(file, `${JSON.stringify(makeMeal(theirs))}\n`);
      await writeMealsFile(path.join(temp.dir, 'tail.jsonl'), 5000, `${prefix}_tail`);
      appendFileSync(file, readFileSync(path.join(temp.dir, 'tail.jsonl')));

      const refused = await importFile(store.db, importer, file);
      assert.equal(refused.code, 1, refused.stderr);
      assert.equal(refused.stderr, `meal-export: Line 12345: id ${JSON.stringify(theirs)} belongs to another user.\n`);
      assert.equal(await exported(store.db, importer), before.importer);

      // A bad record after it is reported instead, as when the whole file was checked before writing.
      appendFileSync(file, '[1, 2]\n');
      const bad = await importFile(store.db, importer, file);
      assert.equal(bad.stderr, `meal-export: Line 17346: A record must be a JSON object, got an array.\n`);
      assert.equal(await exported(store.db, importer), before.importer);
    } finally {
      temp.remove();
      await store.remove();
    }
  });

  test(`on ${backend}, ids repeated far apart are updates, counted in --json, the later record winning`, async () => {
    const temp = makeTempDir();
    const store = await newStore();
    try {
      const prefix = `dup_${process.pid}_${Date.now().toString(36)}`;
      const { importer } = await prepare(store.db, prefix);
      const file = path.join(temp.dir, 'meals.jsonl');
      await writeMealsFile(file, RECORDS - 2, prefix);
      // Line 19,999 repeats line 1 changed; line 20,000 repeats line 2 as it is.
      appendFileSync(
        file,
        `${JSON.stringify({ id: `${prefix}_0`, title: 'last word', type: 'dinner', date: '2025-03-01T12:00:00Z' })}\n`,
      );
      appendFileSync(file, `${readFileSync(file, 'utf8').split('\n')[1]}\n`);

      const result = await importFile(store.db, importer, file);
      assert.equal(result.code, 0, result.stderr);
      // prepare() gave the importer <prefix>_5 and <prefix>_15000 already, with other fields.
      assert.deepEqual(JSON.parse(result.stdout), {
        imported: RECORDS,
        created: RECORDS - 4,
        updated: 3,
        unchanged: 1,
      });
      const meals = (await exported(store.db, importer))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: string; title: string; modifiedAt: string });
      // The importer's own meal first, then the file's in file order: the repeated id last.
      const ids = meals.map((meal) => meal.id);
      const fileOrder = Array.from({ length: RECORDS - 3 }, (_, i) => `${prefix}_${i + 1}`);
      assert.deepEqual(ids.slice(1), [...fileOrder, `${prefix}_0`]);
      assert.equal(meals.at(-1)?.title, 'last word', 'the later record won');
    } finally {
      temp.remove();
      await store.remove();
    }
  });
}

describe('meals import streams a large file into one transaction', () => {
  runStreamingCases('SQLite', async () => {
    const temp = makeTempDir();
    return { db: path.join(temp.dir, 'store.db'), remove: async () => temp.remove() };
  });
});

describe('meals import streams a large file into one transaction, on PostgreSQL', async () => {
  const skip = await postgresSkipReason();
  if (skip !== undefined) {
    test('skipped', (t) => t.skip(skip));
    return;
  }
  runStreamingCases('PostgreSQL', async () => {
    const store = await newPostgresSchema('import_stream');
    return { db: store.url, remove: () => store.remove() };
  });
});

describe('meals import streams a large CSV file', () => {
  test('a bad row near the end is named by the line it starts on, rows spanning two lines each', async () => {
    const temp = makeTempDir();
    try {
      const db = path.join(temp.dir, 'store.db');
      const prefix = `csv_${process.pid}_${Date.now().toString(36)}`;
      const { importer, before } = await prepare(db, prefix);
      const header =
        'id,description,title,type,date,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg';
      const row = (n: number, type: string) =>
        `${prefix}_${n},"rice,\r\nbeans",meal ${n},${type},2025-03-01T12:00:00Z,500,,,,,,,\r\n`;
      const rows = Array.from({ length: RECORDS }, (_, i) => row(i + 1, i + 1 === RECORDS - 1 ? 'brunch' : 'lunch'));
      const file = path.join(temp.dir, 'meals.csv');
      appendFileSync(file, `${header}\r\n${rows.join('')}`);

      const result = await importFile(db, importer, file);
      assert.equal(result.code, 1, result.stderr);
      // Row n starts on line 2n: the header, then two lines a row.
      assert.match(result.stderr, new RegExp(`^meal-export: Line ${2 * (RECORDS - 1)}: type must be one of`));
      assert.equal(await exported(db, importer), before.importer);
    } finally {
      temp.remove();
    }
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function walBytes(db: string): number {
  return existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0;
}

const MiB = 1024 * 1024;

interface StdinImportOptions {
  /** More flags (`--json`). */
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Node flags before the command (`--import` a probe). */
  readonly preload?: readonly string[];
}

/** `meals import - --format FORMAT` as a child process: `feed` writes to its stdin, `exited` tells how it ended. */
function importFromStdin(db: string, userId: string, format: string, options: StdinImportOptions = {}) {
  const command = ['meals', 'import', '--user', userId, '-', '--format', format, '--db', db, ...(options.args ?? [])];
  const child = spawn(process.execPath, [...(options.preload ?? []), BIN, ...command], {
    cwd: PROJECT_ROOT,
    env: options.env ?? cleanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Once it has exited, what is still written meets a closed pipe: that is expected here.
  child.stdin.on('error', () => undefined);
  let ended = false;
  const exited = once(child, 'close').then(([code]) => {
    ended = true;
    return { code: code as number | null, stdout, stderr };
  });
  return {
    exited,
    /** Writes `piece` with back-pressure; false once the import has exited. */
    async feed(piece: string | Buffer): Promise<boolean> {
      if (ended) return false;
      if (!child.stdin.write(piece)) {
        // once() rejects on the closed pipe's error: the exit says the rest.
        await Promise.race([once(child.stdin, 'drain').catch(() => undefined), exited]);
      }
      return !ended;
    },
    end: (piece?: string) => child.stdin.end(piece),
    /** For a failed check that leaves stdin open. */
    kill: () => {
      if (!ended) child.kill('SIGKILL');
    },
  };
}

describe('meals import from stdin', () => {
  test('writes while stdin is still open, and a bad last line still rolls every batch back', async () => {
    const temp = makeTempDir();
    try {
      const db = path.join(temp.dir, 'store.db');
      const prefix = `open_${process.pid}_${Date.now().toString(36)}`;
      const { importer, before } = await prepare(db, prefix);
      const source = path.join(temp.dir, 'meals.jsonl');
      await writeMealsFile(source, 40_000, prefix);
      const walBefore = walBytes(db);
      const run = importFromStdin(db, importer, 'jsonl');
      await run.feed(readFileSync(source));
      // 40 000 meals outgrow SQLite's 8 MiB page cache: the open transaction spills to the WAL.
      const deadline = performance.now() + 60_000;
      while (walBytes(db) < walBefore + 4 * MiB && performance.now() < deadline) await sleep(50);
      const written = walBytes(db) - walBefore;
      run.end('{"id": "x", "type": "lunch", "date": "yesterday"}\n');
      const { code, stderr } = await run.exited;
      assert.ok(written >= 4 * MiB, `the import wrote ${written} bytes to the WAL before stdin ended`);
      assert.equal(code, 1, stderr);
      assert.match(stderr, /^meal-export: Line 40001: date must be an ISO 8601 date-time/);
      assert.equal(await exported(db, importer), before.importer, 'nothing of the import stayed');
    } finally {
      temp.remove();
    }
  });

  test('while it waits for the rest of stdin, holding the write lock, other commands open the store and read it', async () => {
    const temp = makeTempDir();
    const held: { db?: BetterSqlite3.Database; run?: ReturnType<typeof importFromStdin> } = {};
    try {
      const db = path.join(temp.dir, 'store.db');
      const prefix = `wait_${process.pid}_${Date.now().toString(36)}`;
      const { importer, other, before } = await prepare(db, prefix);
      const source = path.join(temp.dir, 'meals.jsonl');
      await writeMealsFile(source, 5_000, prefix);
      const run = importFromStdin(db, importer, 'jsonl', { args: ['--json'] });
      held.run = run;
      await run.feed(readFileSync(source));
      // Two batches read: the import holds the write lock, so another writer is refused at once.
      const probe = new BetterSqlite3(db, { timeout: 0 });
      held.db = probe;
      const locked = () => {
        try {
          probe.exec('BEGIN IMMEDIATE');
          probe.exec('ROLLBACK');
          return false;
        } catch (error) {
          return (error as { code?: string }).code === 'SQLITE_BUSY';
        }
      };
      const deadline = performance.now() + 30_000;
      while (!locked() && performance.now() < deadline) await sleep(50);
      assert.ok(locked(), 'the import holds the write lock while stdin is open');
      const exportedOther = await runCli(['meals', 'export', '--user', other, '--format', 'jsonl', '--db', db]);
      assert.equal(exportedOther.code, 0, exportedOther.stderr);
      assert.equal(exportedOther.stdout, before.other);
      const keys = await runCli(['keys', 'list', '--user', other, '--db', db, '--json']);
      assert.equal(keys.code, 0, keys.stderr);
      assert.ok(locked(), 'still importing');
      run.end();
      const { code, stdout, stderr } = await run.exited;
      assert.equal(code, 0, stderr);
      assert.equal((JSON.parse(stdout) as { imported: number }).imported, 5_000);
    } finally {
      held.db?.close();
      held.run?.kill();
      temp.remove();
    }
  });
});

/** `script` (util-linux) runs the import under a pseudo-terminal, as a person at a terminal would. */
function scriptSkipReason(): string | undefined {
  const found = spawnSync('script', ['--version'], { encoding: 'utf8' });
  return found.status === 0 ? undefined : 'no `script` (util-linux) to run the import on a pseudo-terminal';
}

describe('meals import of a record that never ends', () => {
  test('a CSV quote never closed stops the reading once its record passes 1 MiB: the line named, nothing written, the rest never read', async () => {
    const temp = makeTempDir();
    try {
      const db = path.join(temp.dir, 'store.db');
      const userId = newUserId('open-quote');
      const header =
        'type,date,title,description,caloriesTotal,proteins_g,fats_g,carbs_g,fibers_g,sodium_mg,iron_mg,calcium_mg';
      const run = importFromStdin(db, userId, 'csv');
      await run.feed(
        `${header}\nlunch,2025-03-01T12:00:00Z,soup,hot,,,,,,,,\nlunch,2025-03-01T13:00:00Z,"open,hot,,,,,,,,\n`,
      );
      // Rows that the open quote swallows, until the import gives up or 256 MiB have gone in.
      const rows = 'lunch,2025-03-01T12:00:00Z,soup,hot,,,,,,,,\n'.repeat(2_000);
      let sent = 0;
      while (sent < 256 * MiB && (await run.feed(rows))) sent += rows.length;
      run.end();
      const { code, stderr } = await run.exited;
      assert.equal(code, 1, stderr);
      assert.match(
        stderr,
        /^meal-export: Line 3: A record is longer than 1 MiB \(is a quoted field never closed\?\)\.$/m,
      );
      assert.ok(sent < 32 * MiB, `it read on to ${Math.round(sent / MiB)} MiB`);
      assert.equal(await exported(db, userId), '', 'nothing written');
    } finally {
      temp.remove();
    }
  });

  test('a JSON Lines line of 96 MiB is refused in bounded memory, and the lines after it are still checked', async () => {
    const temp = makeTempDir();
    try {
      const db = path.join(temp.dir, 'store.db');
      const userId = newUserId('long-line');
      const rssFile = path.join(temp.dir, 'max-rss.json');
      // The benchmark's probe of a command's peak memory, read from inside it at exit.
      const probe = ['--import', path.join(PROJECT_ROOT, 'bench/harness/max-rss-on-exit.mjs')];
      const run = importFromStdin(db, userId, 'jsonl', {
        env: { ...cleanEnv(), MEAL_EXPORT_BENCH_MAX_RSS_FILE: rssFile },
        preload: probe,
      });
      await run.feed(`${JSON.stringify(makeMeal())}\n`);
      const piece = 'x'.repeat(MiB);
      for (let i = 0; i < 96; i += 1) assert.ok(await run.feed(piece), 'the import reads the whole input');
      await run.feed(`\n${JSON.stringify(makeMeal())}\n${JSON.stringify({ ...makeMeal(), type: 'feast' })}\n`);
      run.end();
      const { code, stderr } = await run.exited;
      assert.equal(code, 1, stderr);
      // The bad type on line 4 is read and counted after it.
      assert.equal(
        stderr,
        'meal-export: Line 2: A record is longer than 1 MiB (is this JSON Lines, one record per line?) (and 1 more bad record).\n',
      );
      const { peakAnonKb } = JSON.parse(readFileSync(rssFile, 'utf8')) as { peakAnonKb: number };
      // Its own memory with a short line is about 35 MiB; holding the line took 260.
      assert.ok(peakAnonKb < 96 * 1024, `peak ${Math.round(peakAnonKb / 1024)} MiB of its own memory`);
      assert.equal(await exported(db, userId), '', 'nothing written');
    } finally {
      temp.remove();
    }
  });
});

describe('meals import progress', () => {
  test('on a terminal stderr shows records read and their rate in place, then one lasting line', async (t) => {
    const skip = scriptSkipReason();
    if (skip !== undefined) {
      t.skip(skip);
      return;
    }
    const temp = makeTempDir();
    try {
      const file = path.join(temp.dir, 'meals.jsonl');
      await writeMealsFile(file, RECORDS, `tty_${process.pid}`);
      const db = path.join(temp.dir, 'store.db');
      // The records come through a pipe that stops for 1 s after 5 000 of them: the line,
      // redrawn every 250 ms, must show that count while the import waits for the rest.
      const quote = (word: string) => `'${word}'`;
      const importer = [process.execPath, BIN, 'meals', 'import', '--user', 'tty_user', '--format', 'jsonl']
        .concat(['--db', db, '-'])
        .map(quote)
        .join(' ');
      const script = path.join(temp.dir, 'import.sh');
      writeFileSync(script, `{ head -n 5000 ${quote(file)}; sleep 1; tail -n +5001 ${quote(file)}; } | ${importer}\n`);
      const run = spawnSync('script', ['-qfec', `sh ${quote(script)}`, '/dev/null'], {
        cwd: PROJECT_ROOT,
        env: cleanEnv(),
        encoding: 'utf8',
        timeout: 120_000,
      });
      assert.equal(run.status, 0, run.stdout);
      const screen = run.stdout;
      // Drawn in place: each drawing follows a carriage return and an erase of the line.
      const drawings = screen.split('\r\x1b[2K').slice(1);
      assert.ok(
        drawings.some((drawn) => /^importing: 5,000 records read · [\d,]+ records\/s$/.test(drawn)),
        JSON.stringify(screen),
      );
      assert.match(drawings.at(-1) ?? '', /^read 20,000 records in \d+\.\d s \([\d,]+ records\/s\)\r?\n/, screen);
      assert.match(screen, /imported 20000 meals \(20000 created, 0 updated, 0 unchanged\)/);
    } finally {
      temp.remove();
    }
  });

  test('off a terminal nothing but the result is printed, on stdout, and stderr stays empty', async () => {
    const temp = makeTempDir();
    try {
      const file = path.join(temp.dir, 'meals.jsonl');
      await writeMealsFile(file, RECORDS, `pipe_${process.pid}`);
      const result = await importFile(path.join(temp.dir, 'store.db'), 'pipe_user', file);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stderr, '');
      assert.equal(
        result.stdout,
        `${JSON.stringify({ imported: RECORDS, created: RECORDS, updated: 0, unchanged: 0 })}\n`,
      );
    } finally {
      temp.remove();
    }
  });
});
