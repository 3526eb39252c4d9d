import type { BenchContext } from '../harness/context.js';
import { figuresRow, type ScenarioRow, skippedRow } from '../harness/results.js';
import type { ScaleOut } from '../harness/scale-out.js';
import type { Scenario } from '../harness/scenario.js';
import { deltaPollRows } from './delta-poll.js';
import { heavyUserPageRows } from './heavy-user-page.js';
import { scaleOutMemoryRows } from './memory.js';

/**
 * The scale-out deployment (`serve --db postgres://… --redis …`): the same requests as the
 * SQLite rows, against their own same-run ceilings, with the CPU per request of the
 * PostgreSQL backends and of redis-server beside the service's. Skipped, with the reason,
 * when PostgreSQL or Redis does not answer.
 */
function onScaleOut(
  name: string,
  question: string,
  run: (context: BenchContext, scaleOut: ScaleOut) => Promise<ScenarioRow[]>,
): Scenario {
  return {
    name,
    question,
    async run(context) {
      const started = await context.scaleOut();
      if (!started.ok) return [skippedRow(name, started.reason)];
      return run(context, started.scaleOut);
    },
  };
}

/** The row of a request scenario, with the Redis memory its limiter key takes. */
async function withRedisKeySize(scaleOut: ScaleOut, rows: Promise<ScenarioRow[]>): Promise<ScenarioRow[]> {
  const done = await rows;
  const bytes = await scaleOut.redisBytesPerKey();
  return done.map((row) => ({ ...row, redis_bytes_per_key: bytes }));
}

const MB = 2 ** 20;
const mb = (bytes: number) => Math.round((bytes / MB) * 10) / 10;
const perMeal = (bytes: number, meals: number) => Math.round((bytes / Math.max(1, meals)) * 10) / 10;

export const pgRedisSeed = onScaleOut(
  'pg-redis-seed',
  'How fast does `seed` write into PostgreSQL, and how many bytes does a meal take there?',
  (_context, scaleOut) => {
    const { seeding, sizes } = scaleOut;
    return Promise.resolve([
      figuresRow('pg-redis-seed', {
        deployment: scaleOut.label,
        meals_per_s: seeding.mealsPerSecond,
        meals: seeding.meals,
        seconds: seeding.seconds,
        cpu_us_per_meal: Math.round((seeding.cpuSeconds * 1e7) / seeding.meals) / 10,
        users: scaleOut.shape.users,
        heavy_users: scaleOut.shape.heavyUsers,
        vacuum_analyze_s: sizes.vacuumSeconds,
        meals_total_mb: mb(sizes.totalBytes),
        bytes_per_meal_total: perMeal(sizes.totalBytes, sizes.meals),
        bytes_per_meal_heap: perMeal(sizes.heapBytes, sizes.meals),
        bytes_per_meal_primary_key: perMeal(sizes.primaryKeyBytes, sizes.meals),
        bytes_per_meal_by_id: perMeal(sizes.byIdBytes, sizes.meals),
        database_mb: mb(sizes.databaseBytes),
        counters_read: scaleOut.countersRead.join(', '),
      }),
    ]);
  },
);

export const pgRedisDeltaPoll = onScaleOut(
  'pg-redis-delta-poll',
  'The delta poll on PostgreSQL + Redis: how close to the ceiling, and what does each tier spend?',
  (context, scaleOut) => withRedisKeySize(scaleOut, deltaPollRows(context, scaleOut)),
);

export const pgRedisPage100 = onScaleOut(
  'pg-redis-page-100',
  'A page of 100 on PostgreSQL + Redis: how close to the ceiling, and what does each tier spend?',
  (context, scaleOut) => withRedisKeySize(scaleOut, heavyUserPageRows(context, scaleOut, 100)),
);

export const pgRedisPage5000 = onScaleOut(
  'pg-redis-page-5000',
  'A page of 5000 on PostgreSQL + Redis: how close to the ceiling, and what does each tier spend?',
  (context, scaleOut) => withRedisKeySize(scaleOut, heavyUserPageRows(context, scaleOut, 5000)),
);

export const pgRedisMemory = onScaleOut(
  'pg-redis-memory',
  'How much memory does a PostgreSQL + Redis instance hold under 50 concurrent 5000-meal requests?',
  (context, scaleOut) => scaleOutMemoryRows(context, scaleOut),
);
