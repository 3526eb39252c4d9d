import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { importUsersStream } from '../src/meals-io/all-users-import.js';
import { openInputPieces } from '../src/meals-io/read-input.js';
import { readUsersMealFile } from '../src/meals-io/users-meal-file.js';
import { openStorage } from '../src/storage/open-storage.js';

/**
 * The import of every user's history (`meals import --all-users`, docs/cli.md#importing-every-users-history)
 * on SQLite and on PostgreSQL, through the command's own code (the file read as a stream, each
 * record checked, batches of whole users): meals/s of a first load and of the same file run
 * again (every record unchanged), each against the bare write of the same rows measured in the
 * same run: SQLite's INSERT of (user, id, JSON text) into a table without index, in one
 * transaction; PostgreSQL's COPY of them into an unlogged table without index. The peak RSS of
 * the process says the memory stays flat.
 *
 *   node --import tsx bench/history-import.ts [--users 2000] [--meals-per-user 100] [--pg postgres://…]
 */
const argOf = (name: string) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const users = Number(argOf('--users') ?? 0) || 2_000;
const perUser = Number(argOf('--meals-per-user') ?? 0) || 100;
const meals = users * perUser;
const pgUrl = argOf('--pg') ?? process.env.MEAL_EXPORT_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function lineOf(user: number, n: number): string {
  return JSON.stringify({
    userId: `history-user-${user}`,
    id: `history-${user}-${n}`,
    title: `Porridge with berries ${n}`,
    description: 'Oats, milk, blueberries and a spoon of honey.',
    type: 'breakfast',
    date: new Date(Date.UTC(2025, 0, 1) + n * 3_600_000).toISOString(),
    utcOffset: '+00:00',
    caloriesTotal: 350 + (n % 100),
    proteins_g: 12,
    fats_g: 8.5,
    carbs_g: 55,
    fibers_g: 6,
    sodium_mg: 120,
    iron_mg: null,
    calcium_mg: 180,
  });
}

async function writeHistory(file: string): Promise<void> {
  const out = createWriteStream(file);
  for (let user = 0; user < users; user += 1) {
    const chunk = Array.from({ length: perUser }, (_, n) => `${lineOf(user, n)}\n`).join('');
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** The rows a bare write takes: what each record becomes, read from the same file by the same reader. */
async function* bareRows(file: string): AsyncGenerator<[string, string, string]> {
  for await (const item of readUsersMealFile(await openInputPieces(file), 'jsonl')) {
    if ('meal' in item) yield [item.userId, item.meal.id, JSON.stringify(item.meal)];
  }
}

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

async function importRate(location: string, file: string): Promise<number> {
  const storage = await openStorage(location);
  try {
    const started = performance.now();
    const outcome = await importUsersStream(readUsersMealFile(await openInputPieces(file), 'jsonl'), (records) =>
      storage.writes.importUsersBatch(records, Date.now()),
    );
    if (!outcome.ok) throw new Error(outcome.message);
    return meals / ((performance.now() - started) / 1000);
  } finally {
    await storage.close();
  }
}

async function sqliteBare(dir: string, file: string): Promise<number> {
  const db = new Database(path.join(dir, 'bare.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE rows (user_id TEXT, id TEXT, body TEXT)');
  const insert = db.prepare('INSERT INTO rows VALUES (?, ?, ?)');
  const started = performance.now();
  db.exec('BEGIN');
  for await (const row of bareRows(file)) insert.run(...row);
  db.exec('COMMIT');
  const rate = meals / ((performance.now() - started) / 1000);
  db.close();
  return rate;
}

async function postgresBare(url: string, file: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    await sql.unsafe('CREATE UNLOGGED TABLE bare_rows (user_id text, id text, body text)');
    const started = performance.now();
    const copy = await sql.unsafe('COPY bare_rows FROM STDIN').writable();
    const escape = (text: string) =>
      text.replace(/[\\\n\r\t]/g, (c) => ({ '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c] ?? c);
    let lines: string[] = [];
    for await (const row of bareRows(file)) {
      lines.push(`${row.map(escape).join('\t')}\n`);
      if (lines.length === 2000) {
        if (!copy.write(lines.join(''))) await once(copy, 'drain');
        lines = [];
      }
    }
    copy.end(lines.join(''));
    await once(copy, 'finish');
    return meals / ((performance.now() - started) / 1000);
  } finally {
    await sql.end();
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'history-bench-'));
const admin = postgres(pgUrl, { max: 1, onnotice: () => undefined });
const schema = `history_bench_${process.pid}`;
try {
  const file = path.join(dir, 'history.jsonl');
  await writeHistory(file);
  const pgLocation = (() => {
    const url = new URL(pgUrl);
    url.searchParams.set('search_path', schema);
    return url.toString();
  })();
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  const rows = [];
  for (const [backend, location, bare] of [
    ['SQLite', path.join(dir, 'store.db'), () => sqliteBare(dir, file)],
    ['PostgreSQL', pgLocation, () => postgresBare(pgLocation, file)],
  ] as const) {
    const bareRate = await bare();
    const created = await importRate(location, file);
    const unchanged = await importRate(location, file);
    rows.push({
      backend,
      meals,
      users,
      created_per_s: Math.round(created),
      unchanged_per_s: Math.round(unchanged),
      bare_per_s: Math.round(bareRate),
      created_over_bare: Math.round((created / bareRate) * 100) / 100,
      unchanged_over_created: Math.round((unchanged / created) * 100) / 100,
    });
  }
  console.log(
    JSON.stringify(
      { rows, peak_rss_mb: Math.round(peakRss / 1024 / 1024), cpus: os.cpus().length, model: os.cpus()[0]?.model },
      null,
      1,
    ),
  );
} finally {
  clearInterval(sampler);
  await admin.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
