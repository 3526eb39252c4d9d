import type { BenchContext } from '../harness/context.js';
import type { Deployment } from '../harness/deployment.js';
import type { ScenarioRow } from '../harness/results.js';
import { firstPage, HEAVY_USER, type MealPageBody } from '../harness/scenario.js';
import { deltaPollRequest } from './delta-poll.js';
import { GROWTH_GOAL, growthRow, meanOf, tiersOf } from './store-scale-rows.js';

/** Each request is measured this many times on each store, the stores alternating. */
const ROUNDS = 2;

interface Probe {
  readonly name: string;
  readonly label: string;
  /** The request and its key on a store. */
  prepare(deployment: Deployment): Promise<{ request: string; key: string }>;
}

function probes(context: BenchContext): Probe[] {
  const heavyPage = (limit: number): Probe => ({
    name: `page-${limit}`,
    label: `a heavy user's first page of ${limit}`,
    async prepare(deployment) {
      return { request: firstPage(limit), key: await context.createKey(deployment.db, HEAVY_USER) };
    },
  });
  return [
    {
      name: 'delta-poll',
      label: 'the delta poll (a regular user, a handful of changes)',
      prepare: (deployment) => deltaPollRequest(context, deployment),
    },
    {
      name: 'key-info',
      label: 'GET /v1/key',
      async prepare(deployment) {
        const { key } = await deltaPollRequest(context, deployment);
        return { request: '/v1/key', key };
      },
    },
    heavyPage(100),
    heavyPage(5000),
  ];
}

/**
 * The requests the 200 k-meal rows measure (pg-redis-*), on both stores, each as req/s at the
 * run's connections, p99, and the CPU per request of every tier, the big store's over the
 * small one's: how the serving cost grows with the store.
 */
export async function requestGrowthRows(
  context: BenchContext,
  base: Deployment,
  big: Deployment,
): Promise<ScenarioRow[]> {
  const rows: ScenarioRow[] = [];
  for (const probe of probes(context)) {
    const requests = [await probe.prepare(base), await probe.prepare(big)] as const;
    const rounds: [Array<Record<string, number>>, Array<Record<string, number>>] = [[], []];
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [at, deployment] of [base, big].entries()) {
        const { request, key } = requests[at === 0 ? 0 : 1];
        const result = await context.measure(deployment.server, request, key);
        rounds[at === 0 ? 0 : 1].push({ rps: result.rps, p99: result.p99Ms, ...tiersOf(result) });
      }
    }
    const [small, large] = [meanOf(rounds[0]), meanOf(rounds[1])];
    const tiers = (figures: Record<string, number>) =>
      ['service', 'postgres', 'redis'].map((tier) => Math.round(figures[tier] ?? 0)).join(' + ');
    context.log(
      `  ${probe.name}: CPU ${tiers(small)} → ${tiers(large)} µs, p99 ${small.p99?.toFixed(1)} → ${large.p99?.toFixed(1)} ms`,
    );
    rows.push(
      growthRow(
        `${probe.name}-cpu`,
        `${probe.label}: CPU µs a request (service + PostgreSQL + Redis)`,
        small.total ?? 0,
        large.total ?? 0,
        `≤ ${GROWTH_GOAL}`,
        { base_tiers: tiers(small), big_tiers: tiers(large) },
      ),
      growthRow(`${probe.name}-p99`, `${probe.label}: p99 ms`, small.p99 ?? 0, large.p99 ?? 0, `≤ ${GROWTH_GOAL}`),
      growthRow(`${probe.name}-rps`, `${probe.label}: req/s`, small.rps ?? 0, large.rps ?? 0, null),
    );
  }
  return rows;
}

/**
 * A heavy user's first sync: every page of 5000 from the start of its feed, one after the
 * other, as a new client does; the milliseconds of the whole.
 */
async function firstSyncMs(context: BenchContext, deployment: Deployment, key: string): Promise<number> {
  const started = performance.now();
  let cursor: string | null = null;
  let meals = 0;
  for (;;) {
    const page: MealPageBody = await context.fetchJson<MealPageBody>(
      deployment.server,
      `${firstPage(5000)}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      key,
    );
    meals += page.count;
    if (!page.hasMore) break;
    cursor = page.nextCursor;
  }
  if (meals !== deployment.shape.heavyMeals)
    throw new Error(`${HEAVY_USER}'s first sync read ${meals} meals, not ${deployment.shape.heavyMeals}`);
  return performance.now() - started;
}

/** The first sync of a heavy user on both stores, three times each, alternating: the medians. */
export async function firstSyncRow(context: BenchContext, base: Deployment, big: Deployment): Promise<ScenarioRow> {
  const keys = [await context.createKey(base.db, HEAVY_USER), await context.createKey(big.db, HEAVY_USER)] as const;
  const times: [number[], number[]] = [[], []];
  for (let round = 0; round < 3; round += 1) {
    times[0].push(await firstSyncMs(context, base, keys[0]));
    times[1].push(await firstSyncMs(context, big, keys[1]));
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[1] ?? Number.NaN;
  return growthRow(
    'first-sync',
    `a heavy user's first sync (${base.shape.heavyMeals} meals, pages of 5000): ms`,
    median(times[0]),
    median(times[1]),
    `≤ ${GROWTH_GOAL}`,
  );
}
