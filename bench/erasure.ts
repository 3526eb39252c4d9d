import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { MealContent } from '../src/domain/meal.js';
import { openStorage } from '../src/storage/open-storage.js';

/**
 * Erasing a user with 100 000 meals (docs/host-api.md#erasing-a-user), on SQLite and on
 * PostgreSQL: the erasure's time, against the import of the same meals in the same run, and
 * what it does to writers beside it: a process saving single meals of other users (the host
 * API PUT's write) every 5 ms, the p99 and the longest of its saves while the erasure runs
 * against the p99 of its saves before it.
 *
 *   node --import tsx bench/erasure.ts [--meals 100000] [--pg postgres://…]
 */
const argOf = (name: string) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const meals = Number(argOf('--meals') ?? 0) || 100_000;
const pgUrl = argOf('--pg') ?? process.env.MEAL_EXPORT_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const ms = (value: number) => Math.round(value * 10) / 10;

function mealOf(n: number): MealContent {
  return {
    id: `erase-bench-${n}`,
    title: `Porridge with berries ${n}`,
    description: 'Oats, milk, blueberries and a spoon of honey.',
    type: 'breakfast',
    date: Date.UTC(2025, 0, 1) + n * 60_000,
    utcOffset: '+01:00',
    caloriesTotal: 350 + (n % 100),
    proteins_g: 12,
    fats_g: 8.5,
    carbs_g: 55,
    fibers_g: 6,
    sodium_mg: 120,
    iron_mg: null,
    calcium_mg: 180,
  };
}

async function* batches(): AsyncGenerator<readonly MealContent[]> {
  for (let start = 0; start < meals; start += 2_000) {
    yield Array.from({ length: Math.min(2_000, meals - start) }, (_, i) => mealOf(start + i));
  }
}

async function measure(backend: string, location: string): Promise<Record<string, unknown>> {
  const storage = await openStorage(location);
  try {
    const importStart = performance.now();
    await storage.writes.importMeals('leaver', batches(), Date.now());
    const importSeconds = (performance.now() - importStart) / 1000;

    const probe = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'harness', 'save-probe.ts'), location],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    const out: Buffer[] = [];
    probe.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const erasedFrom = Date.now();
    const eraseStart = performance.now();
    const erased = await storage.erasure.eraseUser('leaver', Date.now());
    const eraseSeconds = (performance.now() - eraseStart) / 1000;
    const erasedTo = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    probe.stdin.end();
    await new Promise((resolve) => probe.on('close', resolve));
    const saves = JSON.parse(Buffer.concat(out).toString('utf8')) as [number, number][];
    const before = saves
      .filter(([at]) => at < erasedFrom - 200)
      .map(([, took]) => took)
      .sort((a, b) => a - b);
    const beside = saves
      .filter(([at, took]) => at <= erasedTo && at + took >= erasedFrom)
      .map(([, took]) => took)
      .sort((a, b) => a - b);
    return {
      backend,
      meals: erased.meals,
      import_seconds: Math.round(importSeconds * 100) / 100,
      erase_seconds: Math.round(eraseSeconds * 100) / 100,
      erase_vs_import: Math.round((eraseSeconds / importSeconds) * 100) / 100,
      saves_before: before.length,
      save_p99_before_ms: ms(percentile(before, 0.99)),
      saves_beside: beside.length,
      save_p99_beside_ms: ms(percentile(beside, 0.99)),
      save_max_beside_ms: ms(beside.at(-1) ?? 0),
    };
  } finally {
    await storage.close();
  }
}

const folder = mkdtempSync(path.join(os.tmpdir(), 'meal-export-erasure-'));
try {
  console.log(JSON.stringify(await measure('sqlite', path.join(folder, 'meal-export.db'))));
} finally {
  rmSync(folder, { recursive: true, force: true });
}

const schema = `meal_export_bench_erasure_${process.pid}`;
const admin = postgres(pgUrl, { max: 1, onnotice: () => undefined });
try {
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  const url = new URL(pgUrl);
  url.searchParams.set('search_path', schema);
  console.log(JSON.stringify(await measure('postgres', url.href)));
} catch (error) {
  console.log(JSON.stringify({ backend: 'postgres', skipped: error instanceof Error ? error.message : String(error) }));
} finally {
  await admin.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
  await admin.end();
}
