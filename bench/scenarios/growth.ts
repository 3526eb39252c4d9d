import { statSync } from 'node:fs';
import { datasetMeals } from '../harness/options.js';
import { loadRow, ratio, type ScenarioRow } from '../harness/results.js';
import { firstPage, HEAVY_USER, type Scenario } from '../harness/scenario.js';
import { startRealServer } from '../harness/servers.js';

/** Share of the slower database's maximum rate at which latency is compared. */
const RATE_SHARE = 0.25;

function label(meals: number): string {
  return meals >= 1e6 ? `${Math.round(meals / 1e5) / 10}M` : `${Math.round(meals / 1e3)}k`;
}

/**
 * Growth: the page-of-100 query on a 10 k-meal database and on the big one. Throughput and CPU
 * at saturation, and p50/p99 at one fixed rate below it (at saturation p50 measures the queue).
 */
export const growth: Scenario = {
  name: 'growth',
  question: 'Does a page of 100 cost the same on 10 k meals as on 10 M?',
  async run(context) {
    const request = firstPage(100);
    const small = await startRealServer(context.small.db);
    try {
      const smallKey = await context.createKey(context.small.db, HEAVY_USER);
      const bigKey = await context.createKey(context.big.db, HEAVY_USER);
      await context.fetch(small, request, smallKey);
      const smallMax = await context.measure(small, request, smallKey);
      const bigMax = await context.measure(context.real, request, bigKey);
      const rate = Math.max(context.options.connections, Math.round(Math.min(smallMax.rps, bigMax.rps) * RATE_SHARE));
      const smallAtRate = await context.measure(small, request, smallKey, { overallRate: rate });
      const bigAtRate = await context.measure(context.real, request, bigKey, { overallRate: rate });
      const ceiling = context.rows.find((row) => row.name === 'page-100');
      const rows: ScenarioRow[] = [
        { dataset: context.small, max: smallMax, atRate: smallAtRate },
        { dataset: context.big, max: bigMax, atRate: bigAtRate },
      ].map(({ dataset, max, atRate }) => {
        const meals = datasetMeals(dataset.shape);
        return {
          ...loadRow(`growth-${label(meals)}`, max, undefined, {
            meals_in_db: meals,
            db_mb: Math.round(statSync(dataset.db).size / 2 ** 20),
            fixed_rate: rate,
            saturated_p50_ms: max.p50Ms,
            saturated_p99_ms: max.p99Ms,
          }),
          // p50/p99 at the fixed rate; rps and CPU at saturation.
          p50_ms: atRate.p50Ms,
          p99_ms: atRate.p99Ms,
          ceiling_rps: ceiling?.ceiling_rps ?? null,
          ratio: typeof ceiling?.ceiling_rps === 'number' ? ratio(max.rps, ceiling.ceiling_rps) : null,
        };
      });
      const [smallRow, bigRow] = rows;
      if (smallRow !== undefined && bigRow !== undefined) {
        rows[1] = { ...bigRow, p50_vs_10k: ratio(bigAtRate.p50Ms, smallAtRate.p50Ms) };
      }
      return rows;
    } finally {
      await small.stop();
    }
  },
};
