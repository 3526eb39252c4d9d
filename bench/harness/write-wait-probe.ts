import BetterSqlite3 from 'better-sqlite3';

/**
 * A writer beside the benchmark (body-rewrite.ts): takes and releases SQLite's write lock in a
 * loop, as every write of another process does, and reports how long each wait was, in ms,
 * as one JSON array on stdout when its stdin closes.
 */
const db = new BetterSqlite3(process.argv[2] ?? '');
db.pragma('busy_timeout = 60000');
const waits: number[] = [];
let open = true;
process.stdin.on('close', () => {
  open = false;
});
process.stdin.resume();
while (open) {
  const start = performance.now();
  db.exec('BEGIN IMMEDIATE');
  db.exec('COMMIT');
  waits.push(performance.now() - start);
  await new Promise((resolve) => setTimeout(resolve, 5));
}
db.close();
process.stdout.write(JSON.stringify(waits));
