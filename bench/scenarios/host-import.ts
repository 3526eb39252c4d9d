import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { BenchContext } from '../harness/context.js';
import { createServiceToken, startHostApiServer } from '../harness/host-api-server.js';
import { hostImportFile, postImport } from '../harness/host-import-files.js';
import { loadAverage, processMemory, sampleMemory } from '../harness/proc-stats.js';
import { runMealExport } from '../harness/processes.js';
import { figuresRow, ratio, type ScenarioRow, skippedRow } from '../harness/results.js';
import type { Scenario } from '../harness/scenario.js';
import { type ScratchStore, scratchPostgresStore, scratchSqliteStore } from '../harness/scratch-stores.js';
import { HOST_API_SECTION } from './host-put.js';

/** HTTP import meals/s over `meals import`'s, same file, same run (the larger file). */
export const GOAL_IMPORT_VS_CLI = 0.7;
/** Flat: the serving process's peak anonymous memory for the larger file over the smaller's. */
export const GOAL_IMPORT_ANON_RATIO = 1.25;
/**
 * File sizes in meals. An import is at most 64 MiB (docs/host-api.md#importing-many-meals): about
 * 228 k of these 295-byte lines, so a full run spans more by a smaller small file.
 */
const SIZES = { quick: [50_000, 200_000], full: [20_000, 220_000] } as const;

const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10;
const label = (meals: number) => `${meals / 1000}k`;
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};

/** `meals import --user U FILE --json` as its own process, timed from spawn to exit: what a user of the command waits. */
async function cliImport(db: string, userId: string, file: string, meals: number): Promise<number> {
  const started = performance.now();
  const out = JSON.parse(await runMealExport(['meals', 'import', '--user', userId, file, '--json'], db)) as {
    imported: number;
  };
  if (out.imported !== meals) throw new Error(`meals import of ${file}: ${out.imported} of ${meals} meals`);
  return performance.now() - started;
}

interface HttpImport {
  readonly ms: number;
  /** VmHWM of the serving process at the end: its peak since it started, this import the only work it did. */
  readonly peakKb: number;
  /** The largest RssAnon sampled every 20 ms during the import. */
  readonly peakAnonKb: number;
  /** RssAnon and VmRSS of the started server just before the import. */
  readonly idleAnonKb: number;
  readonly idleKb: number;
}

/** The import over the host API, by a `serve` started for it alone, so that its VmHWM is this import's. */
async function httpImport(context: BenchContext, db: string, token: string, userId: string, file: string) {
  const host = await startHostApiServer(db, context.options.profileDir);
  try {
    const { pid } = host.server;
    const idle = processMemory(pid);
    const sampler = sampleMemory(() => [pid], 20);
    const started = performance.now();
    const answer = await postImport(host.hostUrl, context.certificate.ca, token, userId, file);
    const ms = performance.now() - started;
    const peaks = sampler.stop();
    const result: HttpImport = {
      ms,
      peakKb: processMemory(pid).hwmKb,
      peakAnonKb: peaks.rssAnonKb,
      idleAnonKb: idle.rssAnonKb,
      idleKb: idle.rssKb,
    };
    return { ...result, imported: answer.imported };
  } finally {
    await host.server.stop();
  }
}

/**
 * Rounds over the sizes: each file imported by `meals import` into one store and over the host
 * API into another of the same kind (the same ids, so two stores), the two in turn (which goes
 * first alternates). The machine is shared: the ratio is the median of the ratios within a round.
 */
async function measureBackend(
  context: BenchContext,
  backend: string,
  cliDb: string,
  httpDb: string,
): Promise<ScenarioRow> {
  const { quick } = context.options;
  const sizes = SIZES[quick ? 'quick' : 'full'];
  const rounds = quick ? 2 : 3;
  const tag = randomBytes(3).toString('hex');
  const token = await createServiceToken(httpDb);
  // The CLI's store is migrated by a first import; the one-meal import after it is what every
  // `meals import` pays before its first meal (process start, module load, opening the store).
  const warm = await hostImportFile(`hi-${tag}-warm`, 1000);
  await cliImport(cliDb, `hi-${tag}-warm`, warm, 1000);
  const one = await hostImportFile(`hi-${tag}-one`, 1);
  const cliFixedMs = await cliImport(cliDb, `hi-${tag}-one`, one, 1);
  for (const file of [warm, one]) rmSync(file, { force: true });
  const load = loadAverage();
  const figures: Record<string, unknown> = { section: HOST_API_SECTION, backend, rounds, sizes: [...sizes] };
  const http = new Map<number, HttpImport[]>();
  const paired = new Map<number, number[]>();
  const cliRates = new Map<number, number[]>();
  for (let r = 0; r < rounds; r += 1) {
    for (const meals of sizes) {
      const userId = `hi-${tag}-${r}-${label(meals)}`;
      const file = await hostImportFile(userId, meals);
      try {
        let cliMs = 0;
        let httpRun: HttpImport | undefined;
        const steps = [
          async () => (cliMs = await cliImport(cliDb, userId, file, meals)),
          async () => {
            const run = await httpImport(context, httpDb, token, userId, file);
            if (run.imported !== meals) throw new Error(`host import of ${file}: ${run.imported} of ${meals} meals`);
            httpRun = run;
          },
        ];
        for (const step of r % 2 === 0 ? steps : [...steps].reverse()) await step();
        if (httpRun === undefined) throw new Error('no host import measured');
        http.set(meals, [...(http.get(meals) ?? []), httpRun]);
        cliRates.set(meals, [...(cliRates.get(meals) ?? []), Math.round((meals / cliMs) * 1000)]);
        paired.set(meals, [...(paired.get(meals) ?? []), ratio(cliMs, httpRun.ms)]);
      } finally {
        rmSync(file, { force: true });
      }
    }
  }
  for (const meals of sizes) {
    const runs = http.get(meals) ?? [];
    const at = label(meals);
    figures[`http_meals_per_s_${at}`] = median(runs.map((run) => Math.round((meals / run.ms) * 1000)));
    figures[`cli_meals_per_s_${at}`] = median(cliRates.get(meals) ?? []);
    figures[`vs_cli_${at}`] = median(paired.get(meals) ?? []);
    // The largest of the rounds: a peak is what the machine must have room for.
    figures[`peak_rss_${at}_mb`] = mb(Math.max(...runs.map((run) => run.peakKb)));
    figures[`peak_anon_${at}_mb`] = mb(Math.max(...runs.map((run) => run.peakAnonKb)));
    figures[`idle_rss_${at}_mb`] = mb(median(runs.map((run) => run.idleKb)));
    figures[`idle_anon_${at}_mb`] = mb(median(runs.map((run) => run.idleAnonKb)));
  }
  const [small, large] = sizes.map(label);
  const vsCli = figures[`vs_cli_${large}`] as number;
  const anonRatio = ratio(figures[`peak_anon_${large}_mb`] as number, figures[`peak_anon_${small}_mb`] as number);
  return {
    ...figuresRow(`host-import-${backend}`, {
      ...figures,
      small: small,
      large: large,
      cli_fixed_ms: Math.round(cliFixedMs),
      rss_ratio: ratio(figures[`peak_rss_${large}_mb`] as number, figures[`peak_rss_${small}_mb`] as number),
      anon_ratio: anonRatio,
      meals_per_s: figures[`http_meals_per_s_${large}`],
      goal_vs_cli: GOAL_IMPORT_VS_CLI,
      goal_met: vsCli >= GOAL_IMPORT_VS_CLI,
      goal_anon_ratio: GOAL_IMPORT_ANON_RATIO,
      memory_goal_met: anonRatio <= GOAL_IMPORT_ANON_RATIO,
      load_avg: load,
    }),
    rss_mb: figures[`peak_rss_${large}_mb`] as number,
  };
}

/**
 * The host API's import (docs/host-api.md#importing-many-meals): meals/s of `POST …/meals/import`
 * of a JSON Lines file against `meals import` of the same file (goal ≥ 0.7 ×), and the serving
 * process's peak memory (VmHWM, and RssAnon sampled every 20 ms) for two file sizes, flat in the
 * file's size; SQLite, then PostgreSQL.
 */
export const hostImport: Scenario = {
  name: 'host-import',
  question: 'How fast is the host API import against meals import, and is its peak memory flat in the file size?',
  standalone: true,
  async run(context) {
    const rows: ScenarioRow[] = [];
    const backends: ReadonlyArray<[string, () => Promise<ScratchStore>]> = [
      ['sqlite', () => scratchSqliteStore(`host-import-${randomBytes(3).toString('hex')}`)],
      ['pg', () => scratchPostgresStore(context)],
    ];
    for (const [backend, open] of backends) {
      const stores: ScratchStore[] = [await open(), await open()];
      try {
        const [cli, http] = stores;
        if (cli === undefined || http === undefined || 'skipped' in cli || 'skipped' in http) {
          const why = stores.find((store): store is { skipped: string } => 'skipped' in store)?.skipped ?? '';
          rows.push({ ...skippedRow(`host-import-${backend}`, why), section: HOST_API_SECTION });
          continue;
        }
        rows.push(await measureBackend(context, backend, cli.db, http.db));
      } finally {
        for (const store of stores) if (!('skipped' in store)) await store.remove();
      }
    }
    return rows;
  },
};
