import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type DatasetShape, datasetMeals } from './options.js';
import { exitedChildrenCpuMicros } from './proc-stats.js';
import { ROOT, runMealExport } from './processes.js';

/** Seeded databases are kept here (git-ignored), one folder per shape, so a rerun does not reseed. */
export const DATA_DIR = path.join(ROOT, 'bench', '.data');

/**
 * The built files that decide what a seeded database holds: its layout and the bytes of each
 * meal. A change to any of them makes a new cache key, so a stale database is never measured.
 */
const LAYOUT_FILES = [
  'dist/storage/sqlite/migrations.js',
  'dist/storage/sqlite/sqlite-meal-writes.js',
  'dist/storage/sqlite/sqlite-append.js',
  'dist/storage/sqlite/sqlite-commit.js',
  'dist/domain/meal-json.js',
  'dist/domain/instant.js',
  'dist/meals-io/synthetic-meals.js',
  'dist/domain/seeded-random.js',
  // The table of Meal fields: the bodies' fields, and the version a store's bodies are at.
  'dist/domain/meal-fields.js',
  'dist/domain/meal-encoder.js',
];

export interface SeedRun {
  readonly meals: number;
  /** Wall-clock seconds, as `seed --json` reports them. */
  readonly seconds: number;
  /** CPU seconds of the seed process (user + system). */
  readonly cpuSeconds: number;
  readonly mealsPerSecond: number;
}

export interface Dataset {
  readonly shape: DatasetShape;
  readonly db: string;
  readonly folder: string;
  /** How it was seeded (now, or when it was cached). */
  readonly seeding: SeedRun;
  /** True when this run seeded it. */
  readonly seededNow: boolean;
}

function layoutFingerprint(): string {
  const hash = createHash('sha256');
  for (const file of LAYOUT_FILES) hash.update(readFileSync(path.join(ROOT, file)));
  return hash.digest('hex').slice(0, 12);
}

function shapeKey(shape: DatasetShape): string {
  return `u${shape.users}x${shape.mealsPerUser}-h${shape.heavyUsers}x${shape.heavyMeals}-s${shape.seed}`;
}

/** Runs the real `seed` command into `db` and measures it. */
export async function seedDatabase(shape: DatasetShape, db: string): Promise<SeedRun> {
  const cpuBefore = exitedChildrenCpuMicros();
  const args = ['seed', '--users', String(shape.users), '--meals-per-user', String(shape.mealsPerUser)];
  if (shape.heavyUsers > 0)
    args.push('--heavy-users', String(shape.heavyUsers), '--heavy-meals', String(shape.heavyMeals));
  const out = await runMealExport([...args, '--seed', shape.seed, '--json'], db);
  const cpuSeconds = (exitedChildrenCpuMicros() - cpuBefore) / 1e6;
  const result = JSON.parse(out) as { meals: number; seconds: number };
  if (result.meals !== datasetMeals(shape))
    throw new Error(`seed wrote ${result.meals} meals, expected ${datasetMeals(shape)}`);
  return {
    meals: result.meals,
    seconds: result.seconds,
    cpuSeconds,
    mealsPerSecond: Math.round(result.meals / result.seconds),
  };
}

/** The database of this shape, seeded now or found in the cache. */
export async function ensureDataset(shape: DatasetShape, log: (line: string) => void): Promise<Dataset> {
  const folder = path.join(DATA_DIR, `${shapeKey(shape)}-${layoutFingerprint()}`);
  const db = path.join(folder, 'meal-export.db');
  const metaFile = path.join(folder, 'seed.json');
  if (existsSync(metaFile)) {
    const seeding = JSON.parse(readFileSync(metaFile, 'utf8')) as SeedRun;
    log(`dataset ${path.basename(folder)}: cached (${seeding.meals} meals)`);
    return { shape, db, folder, seeding, seededNow: false };
  }
  // No record of a finished seed: whatever is there is a partial run. Databases of this shape
  // with another layout are stale: they go too (a 10 M-meal one is a few GB).
  mkdirSync(DATA_DIR, { recursive: true });
  for (const entry of readdirSync(DATA_DIR)) {
    if (entry.startsWith(`${shapeKey(shape)}-`)) rmSync(path.join(DATA_DIR, entry), { recursive: true, force: true });
  }
  mkdirSync(folder, { recursive: true });
  log(`dataset ${path.basename(folder)}: seeding ${datasetMeals(shape)} meals…`);
  const seeding = await seedDatabase(shape, db);
  writeFileSync(metaFile, `${JSON.stringify(seeding, null, 2)}\n`);
  log(`  seeded in ${seeding.seconds} s: ${seeding.mealsPerSecond} meals/s`);
  return { shape, db, folder, seeding, seededNow: true };
}

/** An empty SQLite file of a scenario's own under bench/.data/scratch, and how to remove it. */
export function scratchSqliteFile(name: string): { readonly db: string; remove(): void } {
  const folder = path.join(DATA_DIR, 'scratch');
  mkdirSync(folder, { recursive: true });
  const db = path.join(folder, `${name}.db`);
  const remove = () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${db}${suffix}`, { force: true });
  };
  remove();
  return { db, remove };
}
