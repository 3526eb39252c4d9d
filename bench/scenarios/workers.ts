import type { BenchContext } from '../harness/context.js';
import type { Deployment } from '../harness/deployment.js';
import type { LoadResult } from '../harness/load.js';
import { processCpuMicros, processTree } from '../harness/proc-stats.js';
import { loadRow, ratio, type ScenarioRow } from '../harness/results.js';
import { firstPage, HEAVY_USER, type Scenario } from '../harness/scenario.js';
import { startRealServer } from '../harness/servers.js';
import { deltaPollRequest } from './delta-poll.js';

const COUNTS = [1, 2] as const;

interface Measured {
  readonly workers: number;
  readonly processes: number;
  readonly delta: LoadResult;
  readonly page: LoadResult;
  readonly deltaMeals: number;
}

/** One `serve --workers N` on the big SQLite database: the delta poll and the page of 100. */
async function measureWorkers(context: BenchContext, workers: number): Promise<Measured> {
  const started = await startRealServer(context.big.db, undefined, ['--workers', String(workers)]);
  try {
    // Every process of the server: with --workers 2, the primary and its two workers.
    const pids = processTree(started.pid);
    // The primary's own share too: with --workers 2 it runs the limiter for every request.
    const counters = { primary_cpu_us: () => processCpuMicros(started.pid) };
    const server = { ...started, probes: { pids: () => pids, counters } };
    const deployment: Deployment = { ...context.embedded, rowPrefix: `workers-${workers}-`, server };
    const poll = await deltaPollRequest(context, deployment);
    const delta = await context.measure(server, poll.request, poll.key);
    const pageKey = await context.createKey(context.big.db, HEAVY_USER);
    const page = await context.measure(server, firstPage(100), pageKey);
    return { workers, processes: pids.length, delta, page, deltaMeals: poll.meals };
  } finally {
    await started.stop();
  }
}

/**
 * Workers: `serve --workers 2` (a primary holding the in-process limiter, which the two
 * workers consume over IPC, and accepting the connections it hands them) against
 * `--workers 1` (one process, the default). CPU per request is summed over every process of
 * the server. The load generator runs in this process on the same 2 cores, so two workers
 * cannot have a core each: req/s says little, CPU per request is the figure.
 */
export const workers: Scenario = {
  name: 'workers',
  question: 'What does a request cost with 2 workers (limits over IPC) against 1 process?',
  async run(context) {
    const measured: Measured[] = [];
    for (const count of COUNTS) measured.push(await measureWorkers(context, count));
    const [one] = measured;
    const rows: ScenarioRow[] = [];
    for (const m of measured) {
      const extra = (load: LoadResult, base: LoadResult | undefined) => ({
        workers: m.workers,
        processes: m.processes,
        cpu_vs_1_worker: base === undefined ? null : ratio(load.cpuUsPerReq, base.cpuUsPerReq),
        rps_vs_1_worker: base === undefined ? null : ratio(load.rps, base.rps),
      });
      rows.push(
        loadRow(`workers-${m.workers}-delta-poll`, m.delta, undefined, {
          ...extra(m.delta, one?.delta),
          meals_per_response: m.deltaMeals,
        }),
        loadRow(`workers-${m.workers}-page-100`, m.page, undefined, {
          ...extra(m.page, one?.page),
          meals_per_response: 100,
          user: HEAVY_USER,
        }),
      );
    }
    return rows;
  },
};
