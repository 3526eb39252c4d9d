import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import type { MealSave } from '../src/domain/meal.js';
import type { Storage } from '../src/storage/storage.js';

/**
 * The write paths of the store, in-process, on SQLite and on PostgreSQL: an import of 100 000
 * meals of one user (created, then the same again: unchanged, then every meal changed:
 * updated), batches of 10 and of 1 meal (`upsertMeals`, `meal-export/host`'s), and single
 * saves (`saveMeal`, the host API PUT's write), each as a rate. `--root DIR` runs another
 * checkout's store code (its src/, with tsx) on the same data, so that two versions are
 * measured side by side on the same machine: run them alternately, A B A B, and compare.
 *
 *   node --import tsx bench/write-paths.ts [--root ../other-checkout] [--pg postgres://…]
 */
const argOf = (name: string) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const root = path.resolve(argOf('--root') ?? path.join(import.meta.dirname, '..'));
const pgUrl = argOf('--pg') ?? process.env.MEAL_EXPORT_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const { openStorage } = (await import(pathToFileURL(path.join(root, 'src/storage/open-storage.ts')).href)) as {
  openStorage(location: string): Promise<Storage>;
};
const MEALS = 100_000;

function mealOf(n: number, title = 'Porridge'): MealSave {
  return {
    id: `writes-${n}`,
    description: 'Oats, milk, blueberries and a spoon of honey.',
    title: `${title} ${n}`,
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

async function* batches(title: string): AsyncGenerator<readonly MealSave[]> {
  for (let start = 0; start < MEALS; start += 2000) {
    yield Array.from({ length: 2000 }, (_, i) => mealOf(start + i, title));
  }
}

const perSecond = (count: number, started: number) => Math.round(count / ((performance.now() - started) / 1000));

async function measure(location: string): Promise<Record<string, number>> {
  const storage = await openStorage(location);
  const out: Record<string, number> = {};
  try {
    for (const [name, title] of [
      ['import created', 'Porridge'],
      ['import unchanged', 'Porridge'],
      ['import updated', 'Oats'],
    ] as const) {
      const started = performance.now();
      const result = await storage.writes.importMeals('importer', batches(title), Date.now());
      if (!result.ok) throw new Error(`${name}: a foreign id`);
      out[`${name} meals/s`] = perSecond(MEALS, started);
    }
    let started = performance.now();
    for (let call = 0; call < 1000; call += 1) {
      const meals = Array.from({ length: 10 }, (_, k) => mealOf(200_000 + call * 10 + k));
      await storage.writes.upsertMeals(`batcher-${call % 50}`, meals, Date.now());
    }
    out['upsert of 10 calls/s'] = perSecond(1000, started);
    started = performance.now();
    for (let call = 0; call < 2000; call += 1) {
      await storage.writes.upsertMeals(`single-${call % 50}`, [mealOf(300_000 + call)], Date.now());
    }
    out['upsert of 1 calls/s'] = perSecond(2000, started);
    started = performance.now();
    for (let call = 0; call < 2000; call += 1) {
      await storage.writes.saveMeal(`saver-${call % 50}`, mealOf(400_000 + call), Date.now());
    }
    out['saveMeal calls/s'] = perSecond(2000, started);
    return out;
  } finally {
    await storage.close();
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'write-paths-'));
const admin = postgres(pgUrl, { max: 1, onnotice: () => undefined });
const schema = `write_paths_${process.pid}`;
try {
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  const url = new URL(pgUrl);
  url.searchParams.set('search_path', schema);
  const sqlite = await measure(path.join(dir, 'store.db'));
  const pg = await measure(url.toString());
  console.log(JSON.stringify({ root, sqlite, postgresql: pg, load: os.loadavg()[0] }));
} finally {
  await admin.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
