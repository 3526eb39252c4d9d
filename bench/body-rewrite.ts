import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { MEAL_BODY_VERSION_SETTING } from '../src/storage/meal-body-rewrite.js';
import { openStorage } from '../src/storage/open-storage.js';
import { seedDatabase } from './harness/datasets.js';

/**
 * The upgrade that writes a new Meal field into every stored body (docs/operations.md#upgrades-that-rewrite-meal-bodies),
 * timed on SQLite: `seed` writes N meals (the baseline of the same run), their bodies are made
 * as the version before wrote them, then the store is opened by the product, which rewrites
 * them in batches while another process writes beside it (write-wait-probe.ts): the figures are
 * the rewrite's time against the seed's, and how long that writer waited for the lock.
 *
 *   node --import tsx bench/body-rewrite.ts [--meals 1000000]
 */
const meals = Number(process.argv[process.argv.indexOf('--meals') + 1] ?? 0) || 1_000_000;
const folder = mkdtempSync(path.join(os.tmpdir(), 'meal-export-body-rewrite-'));
const db = path.join(folder, 'meal-export.db');
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

try {
  const seeded = await seedDatabase(
    { users: meals / 100, mealsPerUser: 100, heavyUsers: 0, heavyMeals: 0, seed: 'rewrite' },
    db,
  );
  const raw = new BetterSqlite3(db);
  // What the version before wrote: the same bodies without the field.
  raw
    .prepare(
      `UPDATE meals SET body = substr(body, 1, instr(body, ',"utcOffset":') - 1) || substr(body, instr(body, ',"caloriesTotal":'))
       WHERE deleted = 0 AND instr(body, ',"utcOffset":') > 0`,
    )
    .run();
  raw.prepare('DELETE FROM settings WHERE name = ?').run(MEAL_BODY_VERSION_SETTING);
  raw.close();

  const probe = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'harness', 'write-wait-probe.ts'), db],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const out: Buffer[] = [];
  probe.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const start = performance.now();
  const storage = await openStorage(db);
  const rewriteSeconds = (performance.now() - start) / 1000;
  await storage.close();
  await new Promise((resolve) => setTimeout(resolve, 500));
  probe.stdin.end();
  await new Promise((resolve) => probe.on('close', resolve));
  const waits = (JSON.parse(Buffer.concat(out).toString('utf8')) as number[]).sort((a, b) => a - b);

  const check = new BetterSqlite3(db, { readonly: true });
  const missing = check
    .prepare(`SELECT count(*) AS n FROM meals WHERE deleted = 0 AND instr(body, ',"utcOffset":') = 0`)
    .get() as { n: number };
  check.close();
  console.log(
    JSON.stringify({
      meals: seeded.meals,
      seed_seconds: seeded.seconds,
      rewrite_seconds: Math.round(rewriteSeconds * 100) / 100,
      rewrite_vs_seed: Math.round((rewriteSeconds / seeded.seconds) * 100) / 100,
      meals_rewritten_per_s: Math.round(seeded.meals / rewriteSeconds),
      writer_waits: waits.length,
      writer_wait_p50_ms: Math.round(percentile(waits, 0.5) * 10) / 10,
      writer_wait_p99_ms: Math.round(percentile(waits, 0.99) * 10) / 10,
      writer_wait_max_ms: Math.round((waits.at(-1) ?? 0) * 10) / 10,
      bodies_without_the_field_after: missing.n,
    }),
  );
} finally {
  rmSync(folder, { recursive: true, force: true });
}
