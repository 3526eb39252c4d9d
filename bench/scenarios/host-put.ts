import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { BenchContext } from '../harness/context.js';
import { DATA_DIR } from '../harness/datasets.js';
import { createServiceToken, type HostApiServer, httpsPut, startHostApiServer } from '../harness/host-api-server.js';
import { type PutClient, putMealJson, type PutRun, startPutClient } from '../harness/host-put-load.js';
import { loadAverage, pidsWithCommandLine, processCpuMicros, processesCpuMicros } from '../harness/proc-stats.js';
import { figuresRow, ratio, type ScenarioRow, skippedRow } from '../harness/results.js';
import type { Scenario } from '../harness/scenario.js';
import { type ScratchStore, scratchPostgresStore, scratchSqliteStore } from '../harness/scratch-stores.js';
import { startCeilingServer } from '../harness/servers.js';
import { startWriter, type WriterProcess } from '../harness/writer-process.js';

export const HOST_API_SECTION = 'host-api';
/** PUT writes/s over the in-process `saveMeal` of one meal after another, same store, same run. */
export const GOAL_PUT_VS_IN_PROCESS = 0.5;
/** p99 of a PUT at a fixed offered load of FIXED_RATE writes/s. */
export const GOAL_PUT_P99_MS = 20;
const FIXED_RATE = 500;
/** The app's back end: a few servers saving meals, each a keep-alive connection. */
const CONNECTIONS = 8;

/** Meals of the in-process baseline per round: about a second of writing on each backend. */
const BASELINE_MEALS = { sqlite: { quick: 5000, full: 10_000 }, pg: { quick: 1000, full: 2000 } } as const;
type Backend = keyof typeof BASELINE_MEALS;

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};
const tenth = (value: number) => Math.round(value * 10) / 10;

interface Harness {
  readonly host: HostApiServer;
  readonly client: PutClient;
  readonly writer: WriterProcess;
  readonly tag: string;
  /** The store's PostgreSQL backends, whoever they serve (undefined on SQLite, whose work is the process's own). */
  readonly pgBackends: (() => number[]) | undefined;
}

/**
 * The backends of the store's database: PostgreSQL titles each `postgres: … USER DATABASE
 * HOST(PORT) STATE` (as bench/harness/scale-out.ts reads them). Its shared processes (WAL
 * writer, checkpointer) are left out: they serve every database of the server.
 */
function pgBackendsOf(db: string): () => number[] {
  const database = decodeURIComponent(new URL(db).pathname.slice(1));
  return () => pidsWithCommandLine((line) => line.startsWith('postgres:') && line.includes(` ${database} `));
}

/** CPU µs of the store's PostgreSQL backends while `work` runs, and its result; 0 on SQLite. */
async function withPgCpu<T>(harness: Harness, work: () => Promise<T>): Promise<{ result: T; pgCpuUs: number }> {
  const backends = harness.pgBackends;
  const before = backends === undefined ? 0 : processesCpuMicros(backends());
  const result = await work();
  return { result, pgCpuUs: backends === undefined ? 0 : processesCpuMicros(backends()) - before };
}

/** A load of the client on the server, with the server's and PostgreSQL's CPU per PUT over the same window. */
async function measured(harness: Harness, command: Parameters<PutClient['run']>[0]) {
  const { pid } = harness.host.server;
  const cpuBefore = processCpuMicros(pid);
  const { result: run, pgCpuUs } = await withPgCpu(harness, (): Promise<PutRun> => harness.client.run(command));
  const serverCpu = processCpuMicros(pid) - cpuBefore;
  const perPut = (micros: number) => tenth(micros / Math.max(1, run.requests));
  return {
    run,
    cpuUsPerPut: perPut(serverCpu),
    pgCpuUsPerPut: harness.pgBackends === undefined ? undefined : perPut(pgCpuUs),
    serverCpuPct: tenth((serverCpu / 1000 / run.ms) * 100),
  };
}

/**
 * Rounds of: the writer's in-process `saveMeal` of one new meal after another (the baseline), and
 * the client's closed-loop PUTs of new meals for `measureSeconds`, the two in turn (which goes
 * first alternates), each round on fresh users of the same store. The machine is shared: the
 * figure is the median over rounds of the ratio within a round.
 */
async function throughputRow(context: BenchContext, harness: Harness, backend: Backend): Promise<ScenarioRow> {
  const { quick, measureSeconds } = context.options;
  const meals = BASELINE_MEALS[backend][quick ? 'quick' : 'full'];
  const rounds = quick ? 3 : 5;
  const load = loadAverage();
  const put: Array<Awaited<ReturnType<typeof measured>>> = [];
  const inProcess: Array<{ rate: number; cpuUsPerWrite: number; pgCpuUsPerWrite: number }> = [];
  const paired: number[] = [];
  // PostgreSQL: bare one-row commits in each round (a round trip and a WAL flush each), the
  // store's bound on one saver after another.
  const commitRates: number[] = [];
  const savesVsCommits: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    const baseline = async () => {
      const userId = `hp-${harness.tag}-in-process-${r}`;
      const { result, pgCpuUs } = await withPgCpu(harness, () =>
        harness.writer.ask({ op: 'saves', userId, meals, idPrefix: `${userId}-` }),
      );
      inProcess.push({
        rate: Math.round((meals / result.ms) * 1000),
        cpuUsPerWrite: tenth(result.cpuUs / meals),
        pgCpuUsPerWrite: tenth(pgCpuUs / meals),
      });
    };
    const overHttp = async () => {
      const prefix = `hp-${harness.tag}-put-${r}`;
      put.push(await measured(harness, { op: 'closed', prefix, seconds: measureSeconds }));
    };
    for (const step of r % 2 === 0 ? [baseline, overHttp] : [overHttp, baseline]) await step();
    paired.push(ratio(put[r]?.run.rps ?? 0, inProcess[r]?.rate ?? 0));
    if (backend === 'pg') {
      const { ms } = await harness.writer.ask({ op: 'commits', count: meals });
      commitRates.push(Math.round((meals / ms) * 1000));
      savesVsCommits.push(ratio(inProcess[r]?.rate ?? 0, commitRates[r] ?? 0));
    }
  }
  const vsInProcess = median(paired);
  const putRates = put.map((one) => one.run.rps);
  // The latencies and client CPU of the round whose rate is the median one.
  const middle = put.find((one) => one.run.rps === median(putRates)) ?? put[0];
  const cpuUsPerPut = median(put.map((one) => one.cpuUsPerPut));
  const cpuUsPerWrite = median(inProcess.map((one) => one.cpuUsPerWrite));
  const pgCpu =
    harness.pgBackends === undefined
      ? {}
      : {
          pg_cpu_us_per_put: median(put.map((one) => one.pgCpuUsPerPut ?? 0)),
          baseline_pg_cpu_us_per_write: median(inProcess.map((one) => one.pgCpuUsPerWrite)),
          durable_commits_per_s: median(commitRates),
          baseline_vs_durable_commit: median(savesVsCommits),
        };
  return {
    ...figuresRow(`host-put-${backend}`, {
      section: HOST_API_SECTION,
      backend,
      connections: CONNECTIONS,
      rounds,
      seconds_per_round: measureSeconds,
      baseline_meals_per_round: meals,
      writes_per_s: median(putRates),
      baseline_writes_per_s: median(inProcess.map((one) => one.rate)),
      vs_in_process: vsInProcess,
      baseline_cpu_us_per_write: cpuUsPerWrite,
      cpu_vs_in_process: ratio(cpuUsPerWrite, cpuUsPerPut),
      ...pgCpu,
      server_cpu_pct: middle?.serverCpuPct,
      client_cpu_pct: middle?.run.clientCpuPct,
      rounds_put: putRates,
      rounds_in_process: inProcess.map((one) => one.rate),
      goal_vs_in_process: GOAL_PUT_VS_IN_PROCESS,
      goal_met: vsInProcess >= GOAL_PUT_VS_IN_PROCESS,
      load_avg: load,
    }),
    rps: median(putRates),
    p50_ms: middle?.run.p50Ms ?? null,
    p99_ms: middle?.run.p99Ms ?? null,
    cpu_us_per_req: cpuUsPerPut,
  };
}

const fixedRateSeconds = (context: BenchContext) => (context.options.quick ? 5 : 15);

/** PUTs offered at FIXED_RATE a second, open loop, for a few seconds: their latency from when each was due. */
async function fixedRateRow(context: BenchContext, harness: Harness, backend: Backend): Promise<ScenarioRow> {
  const seconds = fixedRateSeconds(context);
  const load = loadAverage();
  const { run, cpuUsPerPut, pgCpuUsPerPut, serverCpuPct } = await measured(harness, {
    op: 'open',
    rate: FIXED_RATE,
    prefix: `hp-${harness.tag}-fixed-rate`,
    seconds,
  });
  return {
    ...figuresRow(`host-put-${backend}-${FIXED_RATE}-per-s`, {
      section: HOST_API_SECTION,
      backend,
      connections: CONNECTIONS,
      offered_per_s: FIXED_RATE,
      seconds,
      requests: run.requests,
      max_ms: run.maxMs,
      server_cpu_pct: serverCpuPct,
      client_cpu_pct: run.clientCpuPct,
      ...(pgCpuUsPerPut === undefined ? {} : { pg_cpu_us_per_put: pgCpuUsPerPut }),
      goal_p99_ms: GOAL_PUT_P99_MS,
      goal_met: run.p99Ms < GOAL_PUT_P99_MS,
      load_avg: load,
    }),
    rps: run.rps,
    p50_ms: run.p50Ms,
    p99_ms: run.p99Ms,
    cpu_us_per_req: cpuUsPerPut,
  };
}

/**
 * The ceiling (bench/harness/ceiling-server.ts): bare node:https writing the bytes of a real PUT's
 * answer, under the same client and load: what Node's HTTP and TLS take for a PUT on this machine
 * before any work of the service's.
 */
async function ceilingFigures(context: BenchContext, harness: Harness, token: string) {
  const { tag } = harness;
  const url = `${harness.host.hostUrl}/host/v1/users/hp-${tag}-ceiling/meals/hp-${tag}-ceiling-0`;
  const answer = await httpsPut(url, context.certificate.ca, token, putMealJson());
  if (answer.status !== 200) throw new Error(`PUT ${url}: ${answer.status} ${answer.body.toString()}`);
  const ceiling = await startCeilingServer(answer, context.certificate, path.join(DATA_DIR, 'scratch'));
  try {
    const caFile = context.certificate.certFile;
    const client = await startPutClient({ hostUrl: ceiling.url, caFile, token, connections: CONNECTIONS });
    try {
      await client.run({ op: 'closed', prefix: 'warm', seconds: context.options.warmupSeconds });
      const cpuBefore = processCpuMicros(ceiling.pid);
      const run = await client.run({ op: 'closed', prefix: 'ceiling', seconds: context.options.measureSeconds });
      const cpuUsPerPut = tenth((processCpuMicros(ceiling.pid) - cpuBefore) / Math.max(1, run.requests));
      // The same open loop as fixedRateRow's: how much of its p99 is this machine's, not the service's.
      const seconds = fixedRateSeconds(context);
      const fixed = await client.run({ op: 'open', rate: FIXED_RATE, prefix: 'ceiling-fixed', seconds });
      return { rps: run.rps, cpuUsPerPut, clientCpuPct: run.clientCpuPct, fixed };
    } finally {
      await client.stop();
    }
  } finally {
    await ceiling.stop();
  }
}

async function measureStore(context: BenchContext, db: string, backend: Backend): Promise<ScenarioRow[]> {
  const token = await createServiceToken(db);
  const host = await startHostApiServer(db, context.options.profileDir);
  try {
    const writer = await startWriter({ db });
    const client = await startPutClient({
      hostUrl: host.hostUrl,
      caFile: context.certificate.certFile,
      token,
      connections: CONNECTIONS,
    });
    try {
      const harness: Harness = {
        host,
        client,
        writer,
        tag: randomBytes(3).toString('hex'),
        pgBackends: backend === 'pg' ? pgBackendsOf(db) : undefined,
      };
      // Warm-up: both paths' code, the client's connections, the store's first pages.
      const warm = `hp-${harness.tag}-warm`;
      await writer.ask({ op: 'saves', userId: warm, meals: 1000, idPrefix: `${warm}-` });
      await client.run({ op: 'closed', prefix: `hp-${harness.tag}-warm-put`, seconds: context.options.warmupSeconds });
      const throughput = await throughputRow(context, harness, backend);
      const fixed = await fixedRateRow(context, harness, backend);
      // Once, on SQLite: the ceiling is the same whatever store the real server writes to.
      if (backend !== 'sqlite') return [throughput, fixed];
      const ceiling = await ceilingFigures(context, harness, token);
      const cpu = throughput.cpu_us_per_req ?? 0;
      const withCeiling: ScenarioRow = {
        ...throughput,
        ceiling_rps: ceiling.rps,
        ratio: ratio(throughput.rps ?? 0, ceiling.rps),
        cpu_ratio: ratio(ceiling.cpuUsPerPut, cpu),
        ceiling_cpu_us_per_req: ceiling.cpuUsPerPut,
        ceiling_client_cpu_pct: ceiling.clientCpuPct,
        service_cpu_us_per_put: tenth(cpu - ceiling.cpuUsPerPut),
      };
      const fixedWithCeiling: ScenarioRow = {
        ...fixed,
        ceiling_p50_ms: ceiling.fixed.p50Ms,
        ceiling_p99_ms: ceiling.fixed.p99Ms,
        ceiling_max_ms: ceiling.fixed.maxMs,
      };
      return [withCeiling, fixedWithCeiling];
    } finally {
      await client.stop();
      await writer.stop();
    }
  } finally {
    await host.server.stop();
  }
}

/**
 * The host API's single-meal PUT (docs/host-api.md#saving-and-deleting-meals): writes a second
 * from a load client process over keep-alive HTTPS against `meal-export/host`'s in-process
 * `saveMeal` of one meal after another on the same store (goal ≥ 0.5 ×), and p99 at a fixed 500
 * writes a second, open loop (goal < 20 ms); SQLite, then PostgreSQL, whose backends' CPU per
 * write is read beside the service's.
 */
export const hostPut: Scenario = {
  name: 'host-put',
  question: 'How many single-meal PUTs a second does the host API take, against in-process saveMeal, and p99 at 500/s?',
  standalone: true,
  async run(context) {
    const rows: ScenarioRow[] = [];
    const backends: ReadonlyArray<[Backend, () => Promise<ScratchStore>]> = [
      ['sqlite', () => scratchSqliteStore('host-put')],
      ['pg', () => scratchPostgresStore(context)],
    ];
    for (const [backend, open] of backends) {
      const store = await open();
      if ('skipped' in store) {
        for (const name of [`host-put-${backend}`, `host-put-${backend}-${FIXED_RATE}-per-s`])
          rows.push({ ...skippedRow(name, store.skipped), section: HOST_API_SECTION });
        continue;
      }
      try {
        rows.push(...(await measureStore(context, store.db, backend)));
      } finally {
        await store.remove();
      }
    }
    return rows;
  },
};
