import { randomBytes } from 'node:crypto';
import { loadAverage } from '../harness/proc-stats.js';
import { figuresRow, ratio, type ScenarioRow, skippedRow } from '../harness/results.js';
import type { Scenario } from '../harness/scenario.js';
import { type ScratchStore, scratchPostgresStore, scratchSqliteStore } from '../harness/scratch-stores.js';
import { startWriter, type WriterProcess } from '../harness/writer-process.js';
import { WEBHOOKS_SECTION } from './webhook-latency.js';

/** The goal: the outbox takes less than 10 % off the import path. */
const GOAL_COST_PCT = 10;
/** Registered, never called: no sender runs in this scenario (see below). */
const ENDPOINT_URL = 'https://127.0.0.1:9/hook';

/**
 * One way of importing: `meals` new meals of one user in upserts of `batch`, measured in
 * `rounds` rounds (quick / full): the machine is shared, so the best of several.
 */
interface Shape {
  readonly label: string;
  readonly meals: number;
  readonly batch: number;
  readonly rounds: { readonly quick: number; readonly full: number };
}

const SHAPES: readonly Shape[] = [
  { label: 'batch-1000', meals: 20_000, batch: 1000, rounds: { quick: 5, full: 7 } },
  // On PostgreSQL one upsert is a commit that waits for its WAL flush (≈ 4 ms here): fewer rounds.
  { label: 'single', meals: 2000, batch: 1, rounds: { quick: 3, full: 5 } },
];
const MAX_ROUNDS = Math.max(...SHAPES.map((shape) => shape.rounds.full));

const round = (value: number) => Math.round(value);
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

/**
 * Meals per second of each shape for a user without an endpoint and for one with an endpoint,
 * in rounds, each on fresh users, the two in turn (which goes first alternates, so warming and
 * the store's growth fall on both alike). The machine is shared, and other work moves a round's
 * rate by 2-3 ×: the figure is the median over rounds of endpoint / none within a round (the two
 * imports back to back), beside the best round of each and the writer's CPU per meal (median).
 */
async function measureStore(writer: WriterProcess, backend: string, quick: boolean): Promise<ScenarioRow[]> {
  const tag = randomBytes(3).toString('hex');
  const none = Array.from({ length: MAX_ROUNDS }, (_, r) => `ic-${tag}-none-${r}`);
  const { userIds: hooked } = await writer.ask({
    op: 'webhooks',
    prefix: `ic-${tag}-hook-`,
    count: MAX_ROUNDS + 1,
    url: ENDPOINT_URL,
  });
  // Warm-up: the code paths of both kinds of user, on users of their own.
  await writer.ask({ op: 'import', userId: `ic-${tag}-none-warm`, meals: 2000, batch: 100 });
  await writer.ask({ op: 'import', userId: hooked[MAX_ROUNDS] ?? '', meals: 2000, batch: 100 });
  const load = loadAverage();
  const rows: ScenarioRow[] = [];
  for (const shape of SHAPES) {
    const rounds = quick ? shape.rounds.quick : shape.rounds.full;
    const rates = { none: [] as number[], endpoint: [] as number[] };
    const cpu = { none: [] as number[], endpoint: [] as number[] };
    /** Endpoint over none within each round: the two imports ran back to back, under the same load. */
    const paired: number[] = [];
    for (let r = 0; r < rounds; r += 1) {
      const pair = [
        ['none', none[r] ?? ''],
        ['endpoint', hooked[r] ?? ''],
      ] as const;
      for (const [kind, userId] of r % 2 === 0 ? pair : [...pair].reverse()) {
        const { ms, cpuUs } = await writer.ask({ op: 'import', userId, meals: shape.meals, batch: shape.batch });
        rates[kind].push(round((shape.meals / ms) * 1000));
        cpu[kind].push(Math.round((cpuUs / shape.meals) * 10) / 10);
      }
      paired.push(ratio(rates.endpoint[r] ?? 0, rates.none[r] ?? 0));
    }
    // The single upserts go to the same users after their batches: both kinds hold as many meals.
    const best = { none: Math.max(...rates.none), endpoint: Math.max(...rates.endpoint) };
    const cpuPerMeal = { none: median(cpu.none), endpoint: median(cpu.endpoint) };
    const pairedMedian = median(paired);
    rows.push(
      figuresRow(`webhook-import-${backend}-${shape.label}`, {
        section: WEBHOOKS_SECTION,
        backend,
        meals: shape.meals,
        batch: shape.batch,
        rounds,
        meals_per_s: best.endpoint,
        baseline_meals_per_s: best.none,
        best_endpoint_vs_none: ratio(best.endpoint, best.none),
        endpoint_vs_none: pairedMedian,
        cost_pct: Math.round((1 - pairedMedian) * 1000) / 10,
        writer_cpu_us_per_meal: cpuPerMeal.endpoint,
        baseline_writer_cpu_us_per_meal: cpuPerMeal.none,
        writer_cpu_cost_pct: Math.round((cpuPerMeal.endpoint / cpuPerMeal.none - 1) * 1000) / 10,
        rounds_none: rates.none,
        rounds_endpoint: rates.endpoint,
        goal_cost_pct: GOAL_COST_PCT,
        goal_met: (1 - pairedMedian) * 100 < GOAL_COST_PCT,
        load_avg: load,
      }),
    );
  }
  return rows;
}

/**
 * Webhooks: what the outbox (an event written in the transaction of each change) costs the import
 * path. The writer imports through `meal-export/host` for a user without an endpoint and for one
 * with an endpoint, same run, on SQLite and PostgreSQL. No sender runs: the endpoint's open event
 * is extended by every change after the first, as it is between two claims; the figure is the
 * import's alone.
 */
export const webhookImportCost: Scenario = {
  name: 'webhook-import-cost',
  question: 'What does the webhook outbox cost the import path (meals/s with an endpoint over without)?',
  standalone: true,
  async run(context) {
    const rows: ScenarioRow[] = [];
    const backends: ReadonlyArray<[string, () => Promise<ScratchStore>]> = [
      ['sqlite', () => scratchSqliteStore('webhook-import-cost')],
      ['pg', () => scratchPostgresStore(context)],
    ];
    for (const [backend, open] of backends) {
      const store = await open();
      if ('skipped' in store) {
        for (const shape of SHAPES)
          rows.push({
            ...skippedRow(`webhook-import-${backend}-${shape.label}`, store.skipped),
            section: WEBHOOKS_SECTION,
          });
        continue;
      }
      try {
        const writer = await startWriter({ db: store.db });
        try {
          rows.push(...(await measureStore(writer, backend, context.options.quick)));
        } finally {
          await writer.stop();
        }
      } finally {
        await store.remove();
      }
    }
    return rows;
  },
};
