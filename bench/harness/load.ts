import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { loadAverage, processesCpuMicros, sampleMemory } from './proc-stats.js';

/** One load of a server: autocannon on loopback, bounded in time, pipelining 1. */
export interface LoadSpec {
  /** The full URL, path and query included. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly seconds: number;
  /** Requests per second over all connections; unset: as fast as the server answers. */
  readonly overallRate?: number | undefined;
  /** Changes each request before it is sent (another key each time, say); unset: all alike. */
  readonly setupRequest?: ((request: autocannon.Request) => autocannon.Request) | undefined;
  /**
   * Clients of their own instead of `connections` alike: each one kept-alive connection sending
   * its own request (path and query on `url`'s origin, with its headers), as API clients do.
   */
  readonly clients?: readonly { readonly path: string; readonly headers: Readonly<Record<string, string>> }[];
}

/** What a load reads of the server under test, besides autocannon's figures. */
export interface ServerProbes {
  /** The server's processes: one, or a primary and its workers (read again at each sample). */
  readonly pids: () => readonly number[];
  /**
   * Cumulative counters of the tiers behind it, by name (`postgres_cpu_us`: the CPU of its
   * database's backends, `redis_cpu_us`: redis-server's, `redis_evalsha_calls` …), read before
   * and after the window: their growth per request is each tier's cost of one request.
   */
  readonly counters?: Readonly<Record<string, () => number | Promise<number>>>;
}

export interface LoadResult {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly requests: number;
  /** Server CPU (user + system) per request over the measured window, in microseconds. */
  readonly cpuUsPerReq: number;
  /** Growth per request of each of `ServerProbes.counters`. */
  readonly perRequest: Readonly<Record<string, number>>;
  /** Server CPU over the window, in % of one core. */
  readonly serverCpuPct: number;
  /** This process's CPU (the load generator) over the window, in % of one core. */
  readonly clientCpuPct: number;
  /** Peaks of the server's resident memory during the window, sampled every 100 ms. */
  readonly rssMb: number;
  readonly rssAnonMb: number;
  readonly rssFileMb: number;
  readonly bytesPerResponse: number;
  /** The machine's 1-minute load average when the window began: above ~2, others share the cores. */
  readonly loadAverage: number;
}

const MB = 1024;

/** The value at quantile q (nearest rank) of sorted values. */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** What a load's figures read of autocannon's result, summed over its clients. */
type Fired = Pick<autocannon.Result, '2xx' | 'errors' | 'timeouts' | 'non2xx'> & {
  readonly throughput: { readonly total: number };
};

/** What one load sees of each response: its status and latency (ms, sub-millisecond). */
type OnResponse = (statusCode: number, ms: number) => void;

async function fire(spec: LoadSpec, seconds: number, onResponse: OnResponse): Promise<Fired> {
  if (spec.clients === undefined) return fireOne(spec, seconds, onResponse);
  const { origin } = new URL(spec.url);
  const results = await Promise.all(
    spec.clients.map((client) =>
      fireOne(
        { ...spec, url: `${origin}${client.path}`, headers: client.headers, connections: 1 },
        seconds,
        onResponse,
      ),
    ),
  );
  const sum = (pick: (result: autocannon.Result) => number) => results.reduce((total, r) => total + pick(r), 0);
  return {
    '2xx': sum((r) => r['2xx']),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    non2xx: sum((r) => r.non2xx),
    throughput: { total: sum((r) => r.throughput.total) },
  };
}

async function fireOne(spec: LoadSpec, seconds: number, onResponse: OnResponse) {
  const options: autocannon.Options = {
    url: spec.url,
    headers: { ...spec.headers },
    connections: spec.connections,
    pipelining: 1,
    duration: seconds,
    timeout: 30,
  };
  if (spec.overallRate !== undefined) options.overallRate = spec.overallRate;
  if (spec.setupRequest !== undefined) options.requests = [{ setupRequest: spec.setupRequest }];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, done: autocannon.Result) =>
      error === null || error === undefined ? resolve(done) : reject(error),
    );
    // autocannon's own histogram keeps whole milliseconds; sub-millisecond latencies need these.
    // It emits (client, statusCode, bytes, responseTime in ms), one argument more than its types say.
    (instance as NodeJS.EventEmitter).on(
      'response',
      (_client: unknown, statusCode: number, _bytes: number, responseTime: number) =>
        onResponse(statusCode, responseTime),
    );
  });
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0) {
    throw new Error(
      `load on ${spec.url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx (${JSON.stringify(result.statusCodeStats)})`,
    );
  }
  return result;
}

/** The latencies of a window's 200 responses, grown as they come. */
class Latencies {
  private values = new Float64Array(1 << 16);
  private count = 0;

  record(ms: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count] = ms;
    this.count += 1;
  }

  sorted(): Float64Array {
    return this.values.slice(0, this.count).sort();
  }
}

/**
 * Warms the server up, then measures it: throughput, latency, server (and tier) CPU and memory.
 * The warm-up and the window are one run on the same connections, as kept-alive clients keep
 * theirs: the window opens when the warm-up ends, so a connection's first request (its TLS
 * handshake, its key's lease moving to the worker it came to) is never in it.
 */
export async function measureLoad(spec: LoadSpec, probes: ServerProbes): Promise<LoadResult> {
  const latencies = new Latencies();
  let open = false;
  let requests = 0;
  const onResponse: OnResponse = (statusCode, ms) => {
    if (!open || statusCode < 200 || statusCode > 299) return;
    requests += 1;
    if (statusCode === 200) latencies.record(ms);
  };
  const run = fire(spec, spec.warmupSeconds + spec.seconds, onResponse);
  await sleep(spec.warmupSeconds * 1000);
  const load = loadAverage();
  const counters = Object.entries(probes.counters ?? {});
  const readCounters = () => Promise.all(counters.map(([, read]) => read()));
  const memory = sampleMemory(probes.pids);
  const cpuBefore = processesCpuMicros(probes.pids());
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  open = true;
  const countersBefore = await readCounters();
  const result = await run;
  open = false;
  const wallMs = performance.now() - started;
  const client = process.cpuUsage(clientBefore);
  const serverCpu = processesCpuMicros(probes.pids()) - cpuBefore;
  const countersAfter = await readCounters();
  const peaks = memory.stop();
  const sorted = latencies.sorted();
  const meanMs = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
  return {
    rps: round((requests * 1000) / wallMs, 1),
    p50Ms: round(quantile(sorted, 0.5), 3),
    p99Ms: round(quantile(sorted, 0.99), 3),
    meanMs: round(meanMs, 3),
    requests,
    cpuUsPerReq: round(serverCpu / Math.max(1, requests), 1),
    perRequest: Object.fromEntries(
      counters.map(([name], i) => [
        name,
        round(((countersAfter[i] ?? 0) - (countersBefore[i] ?? 0)) / Math.max(1, requests), 2),
      ]),
    ),
    serverCpuPct: round((serverCpu / 1000 / wallMs) * 100, 1),
    clientCpuPct: round(((client.user + client.system) / 1000 / wallMs) * 100, 1),
    rssMb: round(peaks.rssKb / MB, 1),
    rssAnonMb: round(peaks.rssAnonKb / MB, 1),
    rssFileMb: round(peaks.rssFileKb / MB, 1),
    bytesPerResponse: Math.round(result.throughput.total / Math.max(1, result['2xx'])),
    loadAverage: load,
  };
}
