import type { LoadResult } from './load.js';

/**
 * One line of bench/results.json: the fields every row has (`name`, `rps`, `p50_ms`, `p99_ms`,
 * `cpu_us_per_req`, `rss_mb`, `ceiling_rps`, `ratio`), then extras. `ratio` is rps over the
 * same-run ceiling's rps; `cpu_ratio` is the ceiling's CPU per request over this one's, which
 * stays honest when the load generator, not the server, limits the ceiling's rps.
 */
export interface ScenarioRow {
  readonly name: string;
  readonly rps: number | null;
  readonly p50_ms: number | null;
  readonly p99_ms: number | null;
  readonly cpu_us_per_req: number | null;
  readonly rss_mb: number | null;
  readonly ceiling_rps: number | null;
  readonly ratio: number | null;
  readonly [extra: string]: unknown;
}

export function ratio(value: number, baseline: number): number {
  return baseline > 0 ? Math.round((value / baseline) * 1000) / 1000 : Number.NaN;
}

/** A row from a measured load against the same request's ceiling (or none). */
export function loadRow(
  name: string,
  real: LoadResult,
  ceiling: LoadResult | undefined,
  extra: Readonly<Record<string, unknown>> = {},
): ScenarioRow {
  return {
    name,
    rps: real.rps,
    p50_ms: real.p50Ms,
    p99_ms: real.p99Ms,
    cpu_us_per_req: real.cpuUsPerReq,
    rss_mb: real.rssMb,
    ceiling_rps: ceiling?.rps ?? null,
    ratio: ceiling === undefined ? null : ratio(real.rps, ceiling.rps),
    cpu_ratio: ceiling === undefined ? null : ratio(ceiling.cpuUsPerReq, real.cpuUsPerReq),
    ceiling_p50_ms: ceiling?.p50Ms ?? null,
    ceiling_p99_ms: ceiling?.p99Ms ?? null,
    ceiling_cpu_us_per_req: ceiling?.cpuUsPerReq ?? null,
    server_cpu_pct: real.serverCpuPct,
    client_cpu_pct: real.clientCpuPct,
    ceiling_client_cpu_pct: ceiling?.clientCpuPct ?? null,
    rss_anon_mb: real.rssAnonMb,
    rss_file_mb: real.rssFileMb,
    bytes_per_response: real.bytesPerResponse,
    requests: real.requests,
    // The tiers behind the server (scale-out: PostgreSQL backends, redis-server), per request.
    ...Object.fromEntries(Object.entries(real.perRequest).map(([counter, value]) => [`${counter}_per_req`, value])),
    load_avg: real.loadAverage,
    ceiling_load_avg: ceiling?.loadAverage ?? null,
    ...extra,
  };
}

/** A row with no load behind it (seeding, sizes): only its extras. */
export function figuresRow(name: string, extra: Readonly<Record<string, unknown>>): ScenarioRow {
  return {
    name,
    rps: null,
    p50_ms: null,
    p99_ms: null,
    cpu_us_per_req: null,
    rss_mb: null,
    ceiling_rps: null,
    ratio: null,
    ...extra,
  };
}

/** A scenario that could not run here (no PostgreSQL, say), and why. */
export function skippedRow(name: string, reason: string): ScenarioRow {
  return figuresRow(name, { skipped: reason });
}

/** One line a person reads while the benchmark runs. */
export function formatRow(row: ScenarioRow): string {
  const parts = [`${row.name.padEnd(22)}`];
  if (typeof row.skipped === 'string') return `${parts[0]}  skipped: ${row.skipped}`;
  if (row.rps !== null) parts.push(`${row.rps.toFixed(0).padStart(7)} req/s`);
  if (row.p50_ms !== null && row.p99_ms !== null) parts.push(`p50 ${row.p50_ms} ms  p99 ${row.p99_ms} ms`);
  if (row.cpu_us_per_req !== null) parts.push(`cpu ${row.cpu_us_per_req} µs/req`);
  for (const tier of ['postgres', 'redis']) {
    const us = row[`${tier}_cpu_us_per_req`];
    if (typeof us === 'number') parts.push(`${tier} ${us} µs/req`);
  }
  if (row.rss_mb !== null) parts.push(`rss ${row.rss_mb} MB`);
  if (row.ceiling_rps !== null) parts.push(`ceiling ${row.ceiling_rps.toFixed(0)} req/s`);
  if (row.ratio !== null) parts.push(`ratio ${row.ratio}`);
  if (typeof row.cpu_ratio === 'number') parts.push(`cpu ratio ${row.cpu_ratio}`);
  if (typeof row.meals_per_s === 'number') parts.push(`${row.meals_per_s} meals/s`);
  if (typeof row.figure === 'string')
    parts.push(`${row.figure}: ${String(row.base)} → ${String(row.big)} (× ${String(row.growth)})`);
  if (typeof row.requests_per_change === 'number') {
    parts.push(
      `${row.requests_per_change} req/change (${row.requests} requests, ${row.delivered}/${row.changes} changes)`,
    );
    parts.push(`delivered p50 ${row.delivery_p50_ms} ms, max ${row.delivery_max_ms} ms`);
  }
  if (typeof row.requests_vs_poller === 'number') parts.push(`vs the poller ${row.requests_vs_poller}`);
  if (typeof row.load_avg === 'number') parts.push(`(load avg ${row.load_avg})`);
  return parts.join('  ');
}
