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
  /** The delta poll with a key of its own on each connection, as clients are. */
  readonly deltaPerClient: LoadResult;
  readonly page: LoadResult;
  readonly deltaMeals: number;
}

/** Clients of their own users and keys: the connections of the load (bench/harness/options.ts). */
const CLIENTS = 10;

/**
 * The delta poll of CLIENTS users, each on a kept-alive connection of its own with its key, as
 * the API's clients are.
 * With --workers, each such key is decided in the worker its connection went to (its lease,
 * docs/operations.md#workers---workers-n); the one key of all connections is decided by the primary.
 */
async function measurePerClient(context: BenchContext, deployment: Deployment) {
  const middle = Math.ceil(deployment.shape.users / 2);
  const polls = await Promise.all(
    Array.from({ length: CLIENTS }, (_, i) => deltaPollRequest(context, deployment, `seed_${middle + i}`)),
  );
  const [first] = polls;
  if (first === undefined) throw new Error('no client');
  const clients = polls.map((poll) => ({ path: poll.request, headers: { authorization: `Bearer ${poll.key}` } }));
  return context.measure(deployment.server, first.request, first.key, { clients });
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
    const deltaPerClient = await measurePerClient(context, deployment);
    const pageKey = await context.createKey(context.big.db, HEAVY_USER);
    const page = await context.measure(server, firstPage(100), pageKey);
    return { workers, processes: pids.length, delta, deltaPerClient, page, deltaMeals: poll.meals };
  } finally {
    await started.stop();
  }
}

/**
 * Workers: `serve --workers 2` (a primary holding the in-process limiter, and accepting the
 * connections it hands the two workers; a key asked about by one worker is leased to it and
 * decided there, one asked about by both is decided by the primary over IPC) against
 * `--workers 1` (one process, the default): the delta poll of one key on every connection,
 * of a key per connection, and the page of 100. CPU per request is summed over every process of
 * the server. The load generator runs in this process on the same 2 cores, so two workers
 * cannot have a core each: req/s says little, CPU per request is the figure.
 */
export const workers: Scenario = {
  name: 'workers',
  question: 'What does a request cost with 2 workers (keys leased, or decided over IPC) against 1 process?',
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
        loadRow(`workers-${m.workers}-delta-poll-key-per-client`, m.deltaPerClient, undefined, {
          ...extra(m.deltaPerClient, one?.deltaPerClient),
          clients: CLIENTS,
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
