import type { LoadResult } from '../harness/load.js';
import { figuresRow, ratio, type ScenarioRow } from '../harness/results.js';

/** The store-scale rows' section of bench/RESULTS.md (harness/report-store-scale.ts). */
export const STORE_SCALE_SECTION = 'store-scale';

/** The goal of the per-request figures: the big store's within this factor of the 200 k one's. */
export const GROWTH_GOAL = 1.2;

const round1 = (value: number) => Math.round(value * 10) / 10;

/**
 * One figure measured on both stores, the big one over the 200 k-meal one. `goal`: what the
 * ratio must stay under (a cost) or over (a rate), when the figure has one.
 */
export function growthRow(
  name: string,
  figure: string,
  base: number,
  big: number,
  goal: string | null,
  extra: Readonly<Record<string, unknown>> = {},
): ScenarioRow {
  return figuresRow(`scale-${name}`, {
    section: STORE_SCALE_SECTION,
    figure,
    base: round1(base),
    big: round1(big),
    growth: ratio(big, base),
    goal,
    ...extra,
  });
}

/** The CPU a request costs every tier: the service, its PostgreSQL backends, redis-server. */
export function tiersOf(result: LoadResult): { service: number; postgres: number; redis: number; total: number } {
  const service = result.cpuUsPerReq;
  const postgres = result.perRequest.postgres_cpu_us ?? 0;
  const redis = result.perRequest.redis_cpu_us ?? 0;
  return { service, postgres, redis, total: service + postgres + redis };
}

/** The mean of each figure over rounds. */
export function meanOf<T extends Record<string, number>>(rounds: readonly T[]): T {
  const keys = Object.keys(rounds[0] ?? {});
  return Object.fromEntries(
    keys.map((key) => [key, rounds.reduce((sum, round) => sum + (round[key] ?? 0), 0) / rounds.length]),
  ) as T;
}
