import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { syntheticMeals } from '../../src/meals-io/synthetic-meals.js';
import type { BenchContext } from '../harness/context.js';
import { DATA_DIR } from '../harness/datasets.js';
import { loadAverage } from '../harness/proc-stats.js';
import { type MeasuredRun, runMeasured } from '../harness/measured-command.js';
import { figuresRow, ratio, type ScenarioRow, skippedRow } from '../harness/results.js';
import type { Scenario } from '../harness/scenario.js';
import { type ScratchStore, scratchPostgresStore, scratchSqliteStore } from '../harness/scratch-stores.js';

export const IMPORT_SECTION = 'import';
/**
 * The baseline: an import of ten batches of 2000, long enough for V8 to have grown its heap
 * to what a steady stream of batches keeps (an import of 1000 meals ends before, at about a
 * third of it), so that the ratios show growth with the file, not that fixed cost.
 */
const BASELINE_MEALS = 20_000;
const SIZES = [200_000, 1_000_000] as const;
const FILES_DIR = path.join(DATA_DIR, 'import-files');

const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10;
const label = (meals: number) => (meals >= 1_000_000 ? `${meals / 1_000_000}m` : `${meals / 1000}k`);

/** A JSON Lines file of `meals` synthetic meals (about 260 bytes a line), made once and kept under bench/.data. */
async function mealsFile(meals: number): Promise<string> {
  mkdirSync(FILES_DIR, { recursive: true });
  const file = path.join(FILES_DIR, `meals-${meals}.jsonl`);
  if (existsSync(file)) return file;
  const partial = `${file}.partial`;
  const out = createWriteStream(partial);
  // Without ids: each import makes its own (the store's ids are unique across users), so one
  // file serves every import of the run.
  for (const { id: _id, ...meal } of syntheticMeals('import-memory', 1, meals)) {
    const line = `${JSON.stringify({ ...meal, date: new Date(meal.date).toISOString() })}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  renameSync(partial, file);
  return file;
}

/** `meals import` of `file` for a new user, as its own process; its peak RSS, measured inside it at exit. */
const importOnce = (db: string, userId: string, file: string): Promise<MeasuredRun> =>
  runMeasured(['meals', 'import', '--user', userId, file, '--json'], db);

async function measureBackend(
  backend: string,
  store: { db: string },
  files: Map<number, string>,
): Promise<ScenarioRow> {
  const load = loadAverage();
  const run = async (meals: number) => importOnce(store.db, `import-memory-${label(meals)}`, files.get(meals) ?? '');
  // A first import warms the store's migrations and the page cache; the baseline is measured after it.
  await importOnce(store.db, 'import-memory-warm-up', files.get(BASELINE_MEALS) ?? '');
  const baseline = await run(BASELINE_MEALS);
  const figures: Record<string, unknown> = {
    section: IMPORT_SECTION,
    backend,
    baseline_meals: BASELINE_MEALS,
    baseline_peak_rss_mb: mb(baseline.peakKb),
    baseline_peak_anon_mb: mb(baseline.peakAnonKb),
  };
  let largest = baseline;
  let previous = baseline;
  for (const meals of SIZES) {
    const measured = await run(meals);
    // Against the size before it too: from 200 k to 1 M the fixed costs are the same, so
    // growth with the file shows there alone.
    if (previous !== baseline)
      figures[`anon_ratio_${label(meals)}_vs_previous`] = ratio(measured.peakAnonKb, previous.peakAnonKb);
    previous = measured;
    largest = measured;
    figures[`peak_rss_${label(meals)}_mb`] = mb(measured.peakKb);
    figures[`ratio_${label(meals)}`] = ratio(measured.peakKb, baseline.peakKb);
    figures[`peak_anon_${label(meals)}_mb`] = mb(measured.peakAnonKb);
    figures[`anon_ratio_${label(meals)}`] = ratio(measured.peakAnonKb, baseline.peakAnonKb);
    figures[`meals_per_s_${label(meals)}`] = Math.round((meals / measured.ms) * 1000);
  }
  return { ...figuresRow(`import-memory-${backend}`, { ...figures, load_avg: load }), rss_mb: mb(largest.peakKb) };
}

/**
 * `meals import` streams its file into one transaction, so its peak memory
 * should not grow with the file. Peak RSS (VmHWM) and peak anonymous memory (RssAnon) of
 * importing 200 k and 1 M meals (JSON Lines) for a new user, each measured inside the command
 * (max-rss-on-exit.mjs), over the same command importing 20 000 (BASELINE_MEALS) in the same
 * run, on SQLite and on PostgreSQL: flat means ratios near 1.
 * Before the change the 200 k import peaked at 343 MB on SQLite and 985 MB on PostgreSQL.
 */
export const importMemory: Scenario = {
  name: 'import-memory',
  question: 'Does the peak memory of meals import stay flat as the file grows (200 k and 1 M meals over 20 k)?',
  standalone: true,
  async run(context: BenchContext) {
    const files = new Map<number, string>();
    for (const meals of [BASELINE_MEALS, ...SIZES]) files.set(meals, await mealsFile(meals));
    const rows: ScenarioRow[] = [];
    const backends: ReadonlyArray<[string, () => Promise<ScratchStore>]> = [
      ['sqlite', () => scratchSqliteStore('import-memory')],
      ['pg', () => scratchPostgresStore(context)],
    ];
    for (const [backend, open] of backends) {
      const store = await open();
      if ('skipped' in store) {
        rows.push({ ...skippedRow(`import-memory-${backend}`, store.skipped), section: IMPORT_SECTION });
        continue;
      }
      try {
        rows.push(await measureBackend(backend, store, files));
      } finally {
        await store.remove();
      }
    }
    return rows;
  },
};
