import { parseArgs } from 'node:util';

/** The shape of a seeded database: N regular users of M meals, K heavy users of H meals. */
export interface DatasetShape {
  readonly users: number;
  readonly mealsPerUser: number;
  readonly heavyUsers: number;
  readonly heavyMeals: number;
  readonly seed: string;
}

export interface BenchOptions {
  readonly quick: boolean;
  /** Scenario names to run (all when empty). */
  readonly only: readonly string[];
  /** Starts the real server under `node --cpu-prof` into this folder when set. */
  readonly profileDir: string | undefined;
  /** The big database (10 M meals, 1 M with --quick) and the 10 k-meal one for growth. */
  readonly big: DatasetShape;
  readonly small: DatasetShape;
  /**
   * The PostgreSQL + Redis deployment's dataset: seeded into a database of the run's own, every
   * run (`seed` writes ≈ 25 k meals/s there, a quarter of SQLite's), so smaller than `big`.
   */
  readonly pgDataset: DatasetShape;
  /** The PostgreSQL server (a database is made on it) and the Redis of the scale-out rows. */
  readonly pgUrl: string;
  readonly redisUrl: string;
  /** A fresh seed into a throw-away database, so every run measures `seed` throughput. */
  readonly seedProbe: DatasetShape;
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly measureSeconds: number;
  /** The fixed-rate scenario runs at this share of page-of-100's measured maximum. */
  readonly fixedRateShare: number;
  /** The memory scenario: concurrent 5000-meal requests. */
  readonly memoryConnections: number;
  /** Long poll: held requests timed from commit to answer, per way of waking them. */
  readonly longPollSamples: number;
  /** Long poll: idle held requests on one process, and how long their CPU is sampled. */
  readonly heldConnections: number;
  readonly idleSeconds: number;
  /**
   * `--scale 10m` (or `1m`): the store-scale scenario's two PostgreSQL stores, loaded by the
   * import of every user's history: the 200 k-meal store the scale-out rows measure, and the big one.
   */
  readonly scale: StoreScale | undefined;
}

const HEAVY = { heavyUsers: 5, heavyMeals: 20_000, seed: '1' } as const;

/** The store-scale scenario's stores: `label` names the big one (`10m`). */
export interface StoreScale {
  readonly label: string;
  readonly base: DatasetShape;
  readonly big: DatasetShape;
}

/** The big store of each `--scale`: regular users of 100 meals, and the heavy users. */
const SCALES: Readonly<Record<string, number>> = { '1m': 10_000, '10m': 100_000 };

export function scaleOf(value: string): StoreScale {
  const users = SCALES[value];
  if (users === undefined) throw new Error(`--scale ${value}: one of ${Object.keys(SCALES).join(', ')}`);
  return {
    label: value,
    base: { users: 1000, mealsPerUser: 100, ...HEAVY },
    big: { users, mealsPerUser: 100, ...HEAVY },
  };
}

/**
 * `--quick` (≤ 3 minutes on 2 cores, seeding included, and ≈ 2.5 more for the long poll), `--only a,b`,
 * `--profile DIR`, `--scale 10m|1m` (the store-scale scenario, alone or beside `--only`'s).
 */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string', default: '' },
      profile: { type: 'string' },
      scale: { type: 'string' },
    },
    strict: true,
  });
  const quick = values.quick;
  return {
    quick,
    only: values.only.split(',').filter((name) => name !== ''),
    profileDir: values.profile,
    big: quick ? { users: 10_000, mealsPerUser: 100, ...HEAVY } : { users: 100_000, mealsPerUser: 100, ...HEAVY },
    pgDataset: quick ? { users: 1000, mealsPerUser: 100, ...HEAVY } : { users: 10_000, mealsPerUser: 100, ...HEAVY },
    pgUrl: process.env.MEAL_EXPORT_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: process.env.MEAL_EXPORT_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    // 10 k meals: 90 users of 100 and one heavy user of 1000, whose first page growth reads.
    small: { users: 90, mealsPerUser: 100, heavyUsers: 1, heavyMeals: 1000, seed: '1' },
    seedProbe: quick
      ? { users: 1000, mealsPerUser: 100, heavyUsers: 5, heavyMeals: 20_000, seed: '1' }
      : { users: 5000, mealsPerUser: 100, heavyUsers: 5, heavyMeals: 20_000, seed: '1' },
    connections: 10,
    warmupSeconds: quick ? 1 : 3,
    measureSeconds: quick ? 3 : 10,
    fixedRateShare: 0.5,
    memoryConnections: 50,
    longPollSamples: quick ? 40 : 200,
    heldConnections: 10_000,
    idleSeconds: quick ? 5 : 15,
    scale: values.scale === undefined ? undefined : scaleOf(values.scale),
  };
}

export function datasetMeals(shape: DatasetShape): number {
  return shape.users * shape.mealsPerUser + shape.heavyUsers * shape.heavyMeals;
}
