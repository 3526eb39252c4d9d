import { seedUserId } from '../../src/meals-io/synthetic-meals.js';
import type { BenchContext } from '../harness/context.js';
import type { Deployment } from '../harness/deployment.js';
import { historyFile } from '../harness/history-file.js';
import { runMeasured } from '../harness/measured-command.js';
import { datasetMeals, type DatasetShape, scaleOf } from '../harness/options.js';
import { figuresRow, type ScenarioRow, skippedRow } from '../harness/results.js';
import { measureSizes, type ScaleOut, startScaleOut } from '../harness/scale-out.js';
import { pruneAfterDeleting } from '../harness/scale-tombstones.js';
import type { Scenario } from '../harness/scenario.js';
import { pollBesideLoad } from './store-scale-beside.js';
import { firstSyncRow, requestGrowthRows } from './store-scale-requests.js';
import { GROWTH_GOAL, growthRow, STORE_SCALE_SECTION } from './store-scale-rows.js';

const MB = 2 ** 20;

/** `meals import --all-users` of a history file, its own process: its rate and peak memory. */
async function loadHistory(deployment: Deployment, file: string) {
  const meals = datasetMeals(deployment.shape);
  const run = await runMeasured(['meals', 'import', '--all-users', file, '--json'], deployment.db);
  const result = JSON.parse(run.stdout) as { created: number; batches: number };
  if (result.created !== meals) throw new Error(`the import created ${result.created} meals, not ${meals}`);
  return {
    mealsPerSecond: Math.round((meals / run.ms) * 1000),
    seconds: Math.round(run.ms) / 1000,
    peakRssMb: run.peakKb / 1024,
    peakAnonMb: run.peakAnonKb / 1024,
    batches: result.batches,
  };
}

const deploymentOf = (scaleOut: ScaleOut, shape: DatasetShape): Deployment => ({ ...scaleOut, shape });

/** The first tenth of the regular users: their meals become the tombstones the prune removes. */
const tenthOfUsers = (shape: DatasetShape) =>
  Array.from({ length: Math.floor(shape.users / 10) }, (_, i) => seedUserId(i + 1));

async function measureStores(context: BenchContext, base: Deployment, big: Deployment): Promise<ScenarioRow[]> {
  const { log } = context;
  const files = [await historyFile(base.shape), await historyFile(big.shape)] as const;
  log(`  history files ready; loading ${datasetMeals(base.shape)} meals`);
  const baseLoad = await loadHistory(base, files[0]);
  log(`  loading ${datasetMeals(big.shape)} meals, the delta poll measured beside`);
  const beside = await pollBesideLoad(context, big, loadHistory(big, files[1]));
  const bigLoad = beside.loaded;
  log(`  loaded: ${baseLoad.mealsPerSecond} and ${bigLoad.mealsPerSecond} meals/s`);
  const sizes = [await measureSizes(base.db), await measureSizes(big.db)] as const;
  const perMeal = (bytes: number, meals: number) => bytes / Math.max(1, meals);
  const rows: ScenarioRow[] = [
    growthRow(
      'load-rate',
      'history import (`meals import --all-users`): meals/s',
      baseLoad.mealsPerSecond,
      bigLoad.mealsPerSecond,
      null,
      {
        base_seconds: baseLoad.seconds,
        big_seconds: bigLoad.seconds,
        big_batches: bigLoad.batches,
      },
    ),
    growthRow('load-rss', 'history import: peak RSS MB (VmHWM)', baseLoad.peakRssMb, bigLoad.peakRssMb, '≤ 250 MB', {
      base_anon_mb: Math.round(baseLoad.peakAnonMb),
      big_anon_mb: Math.round(bigLoad.peakAnonMb),
    }),
    figuresRow('scale-poll-beside-load', {
      section: STORE_SCALE_SECTION,
      rate: beside.rate,
      during_p99_ms: beside.during.p99Ms,
      idle_p99_ms: beside.idle.p99Ms,
      during_rps: beside.during.rps,
      load_ran_throughout: beside.throughout,
    }),
    growthRow(
      'vacuum-after-load',
      '`VACUUM (ANALYZE) meals` after the load: s',
      sizes[0].vacuumSeconds,
      sizes[1].vacuumSeconds,
      null,
    ),
    growthRow(
      'bytes-per-meal',
      'bytes a meal, table + indexes',
      perMeal(sizes[0].totalBytes, sizes[0].meals),
      perMeal(sizes[1].totalBytes, sizes[1].meals),
      null,
      {
        big_heap: Math.round(perMeal(sizes[1].heapBytes, sizes[1].meals)),
        big_primary_key: Math.round(perMeal(sizes[1].primaryKeyBytes, sizes[1].meals)),
        big_by_id: Math.round(perMeal(sizes[1].byIdBytes, sizes[1].meals)),
        big_meals_mb: Math.round(sizes[1].totalBytes / MB),
        big_database_mb: Math.round(sizes[1].databaseBytes / MB),
      },
    ),
  ];
  log(`  sizes: ${Math.round(sizes[1].totalBytes / MB)} MB for ${sizes[1].meals} meals`);
  rows.push(...(await requestGrowthRows(context, base, big)));
  rows.push(await firstSyncRow(context, base, big));
  const prunes = [
    await pruneAfterDeleting(base.db, tenthOfUsers(base.shape)),
    await pruneAfterDeleting(big.db, tenthOfUsers(big.shape)),
  ] as const;
  for (const prune of prunes)
    if (prune.pruned !== prune.tombstones) throw new Error(`pruned ${prune.pruned} of ${prune.tombstones}`);
  const perTombstone = (run: (typeof prunes)[number]) => (run.pruneSeconds * 1e6) / Math.max(1, run.pruned);
  rows.push(
    growthRow(
      'prune',
      'the hourly tombstone prune: µs a tombstone',
      perTombstone(prunes[0]),
      perTombstone(prunes[1]),
      `≤ ${GROWTH_GOAL}`,
      {
        base_tombstones: prunes[0].pruned,
        big_tombstones: prunes[1].pruned,
        base_seconds: prunes[0].pruneSeconds,
        big_seconds: prunes[1].pruneSeconds,
        big_delete_seconds: prunes[1].makeSeconds,
      },
    ),
    growthRow(
      'vacuum-after-prune',
      '`VACUUM (ANALYZE) meals` after the prune: s',
      prunes[0].vacuumSeconds,
      prunes[1].vacuumSeconds,
      null,
    ),
  );
  return rows;
}

/**
 * The PostgreSQL store at scale (`npm run bench -- --scale 10m`): two stores on the same server,
 * the 200 k-meal one the pg-redis rows measure and a big one (10 M meals: 100 000 users × 100
 * and the heavy users), both loaded by the import of every user's history, each served by its
 * own `serve` with Redis; then the same requests on both, alternating, and the big store's
 * figures over the small one's: growth measured, not extrapolated (docs/capacity.md).
 */
export const storeScale: Scenario = {
  name: 'store-scale',
  question: 'How do PostgreSQL’s figures grow from a 200 k-meal store to a big one loaded by the history import?',
  standalone: true,
  async run(context) {
    const scale = context.options.scale ?? scaleOf('10m');
    const small = await startScaleOut(context.options, context.log, 'empty');
    if (!small.ok) return [skippedRow('scale-stores', small.reason)];
    try {
      const large = await startScaleOut(context.options, context.log, 'empty');
      if (!large.ok) return [skippedRow('scale-stores', large.reason)];
      try {
        const base = deploymentOf(small.scaleOut, scale.base);
        const big = deploymentOf(large.scaleOut, scale.big);
        const rows = await measureStores(context, base, big);
        return [
          figuresRow('scale-stores', {
            section: STORE_SCALE_SECTION,
            base_meals: datasetMeals(scale.base),
            big_meals: datasetMeals(scale.big),
            label: scale.label,
          }),
          ...rows,
        ];
      } finally {
        await large.scaleOut.stop();
        context.forgetKeys(large.scaleOut.db);
      }
    } finally {
      await small.scaleOut.stop();
      context.forgetKeys(small.scaleOut.db);
    }
  },
};
