import { setTimeout as sleep } from 'node:timers/promises';
import { quantile } from './load.js';
import { loadAverage } from './proc-stats.js';
import { figuresRow, type ScenarioRow, skippedRow } from './results.js';
import type { WriterProcess } from './writer-process.js';

/**
 * The run loop the commit-latency scenarios share (long-poll-latency.ts, webhook-latency.ts):
 * each case sets up a deployment with a writer process, times `samples` changes from their
 * commit in the writer to their arrival here, and becomes one row of its report section.
 */

/** A deployment ready to be measured: the writer that commits the changes, what the row says of it. */
export interface LatencySetup {
  readonly writer: WriterProcess;
  readonly extra: Readonly<Record<string, unknown>>;
  close(): Promise<void>;
}

export type SetupOrSkipped<S extends LatencySetup> = S | { readonly skipped: string };

/**
 * Every case in turn: set up (or skipped, with the reason, as a row of `section`), measured,
 * and always closed.
 */
export async function runLatencyCases<C extends { readonly name: string }, S extends LatencySetup>(
  section: string,
  cases: readonly C[],
  setUp: (item: C) => Promise<SetupOrSkipped<S>>,
  measure: (item: C, setup: S) => Promise<ScenarioRow>,
): Promise<ScenarioRow[]> {
  const rows: ScenarioRow[] = [];
  for (const item of cases) {
    const setup = await setUp(item);
    if ('skipped' in setup) {
      rows.push({ ...skippedRow(item.name, setup.skipped), section });
      continue;
    }
    try {
      rows.push(await measure(item, setup));
    } finally {
      await setup.close();
    }
  }
  return rows;
}

/** What one sample measured: the change's commit to its arrival here, and the write's own time. */
export interface LatencySample {
  readonly latencyMs: number;
  readonly writeMs: number;
}

/** The figures every sample of a case shares: the clocks' offset and the machine's load. */
export interface SampleClock {
  /** Add to a time of the writer's clock to read it on ours. */
  readonly offsetMs: number;
  readonly roundTripMs: number;
}

export interface MeasuredSamples<S extends LatencySample = LatencySample> {
  readonly samples: readonly S[];
  readonly clock: SampleClock;
  /** The load average (1 min) when the samples began. */
  readonly load: number;
}

/**
 * Measures one case: the writer's clock offset and the load average first, then each sample
 * after a random pause of `settleMs` (so the writes fall anywhere in the polling backends'
 * looks), its commit-to-arrival latency taken.
 */
export async function measureSamples<T, S extends LatencySample>(
  writer: WriterProcess,
  items: readonly T[],
  settleMs: readonly [number, number],
  sample: (item: T, clock: SampleClock, settle: () => Promise<void>) => Promise<S>,
): Promise<MeasuredSamples<S>> {
  const clock = await writer.clockOffset();
  const load = loadAverage();
  const settle = () => sleep(settleMs[0] + Math.random() * (settleMs[1] - settleMs[0])).then(() => undefined);
  const samples: S[] = [];
  for (const item of items) samples.push(await sample(item, clock, settle));
  return { samples, clock, load };
}

export const round = (value: number, digits = 3): number => Math.round(value * 10 ** digits) / 10 ** digits;

export function summary(values: readonly number[]) {
  const sorted = Float64Array.from(values).sort();
  return {
    p50: round(quantile(sorted, 0.5)),
    p99: round(quantile(sorted, 0.99)),
    max: round(sorted[sorted.length - 1] ?? Number.NaN),
    mean: round(sorted.reduce((total, value) => total + value, 0) / Math.max(1, sorted.length)),
  };
}

/** A case's row, its figures in the order the results file has always had them. */
export interface LatencyRowParts {
  readonly section: string;
  /** What the case is: before the deployment's own figures. */
  readonly about: Readonly<Record<string, unknown>>;
  readonly setup: LatencySetup;
  readonly measured: MeasuredSamples;
  /** Figures of the case's own, before the goal. */
  readonly beforeGoal?: Readonly<Record<string, unknown>>;
  readonly goalP99Ms: number;
  /** Figures of the case's own, after the goal. */
  readonly afterGoal?: Readonly<Record<string, unknown>>;
}

export function latencyRow(name: string, parts: LatencyRowParts): ScenarioRow {
  const { samples, clock, load } = parts.measured;
  const latency = summary(samples.map((sample) => sample.latencyMs));
  return {
    ...figuresRow(name, {
      section: parts.section,
      ...parts.about,
      ...parts.setup.extra,
      samples: samples.length,
      max_ms: latency.max,
      mean_ms: latency.mean,
      ...parts.beforeGoal,
      goal_p99_ms: parts.goalP99Ms,
      goal_met: latency.p99 < parts.goalP99Ms,
      ...parts.afterGoal,
      write_p50_ms: summary(samples.map((sample) => sample.writeMs)).p50,
      clock_offset_ms: round(clock.offsetMs),
      clock_offset_within_ms: round(clock.roundTripMs / 2),
      load_avg: load,
    }),
    p50_ms: latency.p50,
    p99_ms: latency.p99,
  };
}
