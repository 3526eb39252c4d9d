import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext } from '../harness/context.js';
import { DATA_DIR } from '../harness/datasets.js';
import type { Deployment } from '../harness/deployment.js';
import type { LoadResult, LoadSpec, ServerProbes } from '../harness/load.js';
import { processCpuMicros, processTree } from '../harness/proc-stats.js';
import type { ServerProcess } from '../harness/processes.js';
import { loadRow, ratio, type ScenarioRow } from '../harness/results.js';
import { firstPage, HEAVY_USER, type Scenario } from '../harness/scenario.js';
import { startCeilingServer, startRealServer } from '../harness/servers.js';
import { deltaPollRequest } from './delta-poll.js';

const COUNTS = [1, 2] as const;
/** Clients of their own users and keys: the connections of the load (bench/harness/options.ts). */
const CLIENTS = 10;
/**
 * A process's first seconds are not its steady state: V8's memory reducer runs a full collection
 * about 8 s after start (≈ 90 ms of the primary's CPU, whatever the load). Loads start after them.
 */
const SETTLED_MS = 10_000;

/** A server of each count, measured in turns: 1, 2, 1, 2 … */
interface Served {
  readonly workers: number;
  readonly server: ServerProcess;
  readonly processes: number;
}

/** One load of every server, in alternated rounds; each server's round of median CPU per request. */
async function inRounds(
  rounds: number,
  servers: readonly Served[],
  load: (served: Served) => Promise<LoadResult>,
): Promise<LoadResult[]> {
  const results: LoadResult[][] = servers.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (const [i, served] of servers.entries()) results[i]?.push(await load(served));
  }
  return results.map((measured) => {
    const sorted = [...measured].sort((a, b) => a.cpuUsPerReq - b.cpuUsPerReq);
    const median = sorted[Math.floor(sorted.length / 2)];
    if (median === undefined) throw new Error('no round measured');
    return median;
  });
}

/** A started server of `workers` processes, read as one: the CPU of all its processes, and `counters`. */
function asServed(started: ServerProcess, workers: number, counters: ServerProbes['counters'] = {}): Served {
  // Every process of the server: with --workers 2, the primary and its two workers.
  const pids = processTree(started.pid);
  return { workers, server: { ...started, probes: { pids: () => pids, counters } }, processes: pids.length };
}

/** `serve --workers N` on the big SQLite database, with the primary's own CPU read apart. */
async function startWorkers(context: BenchContext, workers: number): Promise<Served> {
  const started = await startRealServer(context.big.db, undefined, ['--workers', String(workers)]);
  // The primary's own share: it decides the keys no worker holds, and hands connections over.
  return asServed(started, workers, workers > 1 ? { primary_cpu_us: () => processCpuMicros(started.pid) } : {});
}

/** Bare node:https answering `answer`'s bytes in N processes, as the ceiling of each count. */
async function startBare(context: BenchContext, answer: Awaited<ReturnType<BenchContext['fetch']>>, workers: number) {
  return asServed(
    await startCeilingServer(answer, context.certificate, path.join(DATA_DIR, 'scratch'), workers),
    workers,
  );
}

/** Each load's median round per server, in the order of COUNTS. */
interface Measured {
  readonly delta: readonly LoadResult[];
  readonly keyPerClient: readonly LoadResult[];
  /** The key-per-client load on bare node:https in as many processes. */
  readonly bareKeyPerClient: readonly LoadResult[];
  readonly page: readonly LoadResult[];
  readonly deltaMeals: number;
}

/** The rows of the `i`th server, each load against the same load on one process. */
function rowsOf(served: Served, i: number, rounds: number, measured: Measured): ScenarioRow[] {
  const row = (
    name: string,
    loads: readonly LoadResult[],
    more: Record<string, unknown>,
    ceilings?: readonly LoadResult[],
  ) => {
    const [one] = loads;
    const load = loads[i];
    if (load === undefined || one === undefined) throw new Error(`${name}: not measured`);
    return loadRow(`workers-${served.workers}-${name}`, load, ceilings?.[i], {
      workers: served.workers,
      processes: served.processes,
      rounds,
      cpu_vs_1_worker: ratio(load.cpuUsPerReq, one.cpuUsPerReq),
      rps_vs_1_worker: ratio(load.rps, one.rps),
      ...more,
    });
  };
  const [bareOne] = measured.bareKeyPerClient;
  const bareHere = measured.bareKeyPerClient[i];
  return [
    row('delta-poll', measured.delta, { meals_per_response: measured.deltaMeals }),
    row(
      'delta-poll-key-per-client',
      measured.keyPerClient,
      {
        clients: CLIENTS,
        // What as many bare node:https processes cost against one, in the same rounds.
        bare_cpu_vs_1_process:
          bareHere === undefined || bareOne === undefined ? null : ratio(bareHere.cpuUsPerReq, bareOne.cpuUsPerReq),
      },
      measured.bareKeyPerClient,
    ),
    row('page-100', measured.page, { meals_per_response: 100, user: HEAVY_USER }),
  ];
}

/**
 * Workers: `serve --workers 2` (a primary holding the in-process limiter, and accepting the
 * connections it hands the two workers; a key asked about by one worker is leased to it and
 * decided there, one asked about by both is decided by the primary over IPC) against
 * `--workers 1` (one process, the default): the delta poll of one key on every connection, of a
 * key per connection, and the page of 100. CPU per request is summed over every process of the
 * server. The load generator runs in this process on the same 2 cores, so two workers cannot
 * have a core each: req/s says little, CPU per request is the figure. Both servers run at once
 * and are measured in alternated rounds, the median round of each kept, for this machine's
 * speed drifts between loads by more than the difference measured. The key-per-client load also
 * runs against bare node:https in 1 and 2 processes: what a second process costs here anyway.
 */
export const workers: Scenario = {
  name: 'workers',
  question: 'What does a request cost with 2 workers (keys leased, or decided over IPC) against 1 process?',
  async run(context) {
    const rounds = context.options.quick ? 3 : 5;
    const servers: Served[] = [];
    const bare: Served[] = [];
    try {
      for (const count of COUNTS) servers.push(await startWorkers(context, count));
      const startedAt = performance.now();
      const [first] = servers;
      if (first === undefined) throw new Error('no server');
      const deployment: Deployment = { ...context.embedded, server: first.server };
      const poll = await deltaPollRequest(context, deployment);
      const middle = Math.ceil(deployment.shape.users / 2);
      const polls = await Promise.all(
        Array.from({ length: CLIENTS }, (_, i) => deltaPollRequest(context, deployment, `seed_${middle + i}`)),
      );
      const clients = polls.map((p) => ({ path: p.request, headers: { authorization: `Bearer ${p.key}` } }));
      const pageKey = await context.createKey(context.big.db, HEAVY_USER);
      const [firstClient] = polls;
      if (firstClient === undefined) throw new Error('no client');
      const answer = await context.fetch(first.server, firstClient.request, firstClient.key);
      for (const count of COUNTS) bare.push(await startBare(context, answer, count));
      await sleep(Math.max(0, SETTLED_MS - (performance.now() - startedAt)));

      const perClient: Partial<LoadSpec> = { clients };
      const measure =
        (pathAndQuery: string, key: string, overrides: Partial<LoadSpec> = {}) =>
        (served: Served) =>
          context.measure(served.server, pathAndQuery, key, overrides);
      const delta = await inRounds(rounds, servers, measure(poll.request, poll.key));
      const keyPerClient = await inRounds(rounds, servers, measure(firstClient.request, firstClient.key, perClient));
      const bareKeyPerClient = await inRounds(rounds, bare, measure(firstClient.request, firstClient.key, perClient));
      const page = await inRounds(rounds, servers, measure(firstPage(100), pageKey));

      return servers.flatMap((served, i) =>
        rowsOf(served, i, rounds, { delta, keyPerClient, bareKeyPerClient, page, deltaMeals: poll.meals }),
      );
    } finally {
      await Promise.all([...servers, ...bare].map((served) => served.server.stop()));
    }
  },
};
