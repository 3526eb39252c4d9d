import { loadRow } from '../harness/results.js';
import { firstPage, HEAVY_USER, type Scenario } from '../harness/scenario.js';

/**
 * Fixed rate: page-of-100 latency at a request rate below saturation (a share of the maximum
 * page-100 measured in this run), on the real server and on the ceiling at the same rate.
 * At saturation latency measures only the queue; here it measures the work.
 */
export const fixedRate: Scenario = {
  name: 'fixed-rate',
  question: 'What are p50 and p99 of a page of 100 at a rate the server can sustain?',
  async run(context) {
    const key = await context.createKey(context.big.db, HEAVY_USER);
    const request = firstPage(100);
    let maxRps = context.rows.find((row) => row.name === 'page-100')?.rps;
    if (typeof maxRps !== 'number') maxRps = (await context.measure(context.real, request, key)).rps;
    const rate = Math.max(context.options.connections, Math.round(maxRps * context.options.fixedRateShare));
    const { real, ceiling } = await context.againstCeiling(request, key, { overallRate: rate });
    return [
      loadRow('fixed-rate-page-100', real, ceiling, {
        fixed_rate: rate,
        rate_share_of_max: context.options.fixedRateShare,
        user: HEAVY_USER,
      }),
    ];
  },
};
