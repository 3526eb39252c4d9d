import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { deleteKeysUnder, keysUnder } from '../../test/support/redis.js';
import { connectPostgres } from '../../src/storage/postgres/postgres-connect.js';
import { type SeedRun, seedDatabase } from './datasets.js';
import type { Deployment } from './deployment.js';
import type { BenchOptions } from './options.js';
import { pidsWithCommandLine, processCpuMicros, processesCpuMicros } from './proc-stats.js';
import { startRealServer } from './servers.js';

/** Bytes of the seeded meals table in PostgreSQL (pg_relation_size and friends), after VACUUM. */
export interface PostgresSizes {
  readonly meals: number;
  readonly totalBytes: number;
  readonly heapBytes: number;
  readonly primaryKeyBytes: number;
  readonly byIdBytes: number;
  readonly databaseBytes: number;
  readonly vacuumSeconds: number;
}

/** The PostgreSQL + Redis deployment: `serve --db postgres://… --redis … --redis-prefix …`. */
export interface ScaleOut extends Deployment {
  readonly seeding: SeedRun;
  readonly sizes: PostgresSizes;
  /** The flags its server was started with (the Redis prefix…): a second instance takes them too. */
  readonly serveArgs: readonly string[];
  /** The environment its server was started with besides the store (Redis's URL…): a second instance's too. */
  readonly serveEnv: Readonly<Record<string, string>>;
  /** The counters the loads read (a tier on another host has no /proc here). */
  readonly countersRead: readonly string[];
  /** `MEMORY USAGE` of the limiter keys the run made, averaged; null when there are none. */
  redisBytesPerKey(): Promise<number | null>;
  /** Stops the server, drops the database, deletes the keys under the prefix. */
  stop(): Promise<void>;
}

export type ScaleOutStart =
  { readonly ok: true; readonly scaleOut: ScaleOut } | { readonly ok: false; readonly reason: string };

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function probePostgres(url: string): Promise<string | undefined> {
  const sql = connectPostgres(url, { max: 1, connect_timeout: 3, onnotice: () => undefined });
  try {
    await sql`SELECT 1`;
    return undefined;
  } catch (error) {
    return `no PostgreSQL answers at ${url} (${reasonOf(error)}): start one, or set MEAL_EXPORT_BENCH_PG_URL`;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

function connectRedis(url: string): Redis {
  return new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
}

async function probeRedis(url: string): Promise<string | undefined> {
  const redis = connectRedis(url);
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    return `no Redis answers at ${url} (${reasonOf(error)}): start one, or set MEAL_EXPORT_BENCH_REDIS_URL`;
  } finally {
    redis.disconnect();
  }
}

/** The redis-server's CPU, when it runs on this machine (its pid from INFO, checked in /proc). */
async function redisCpuReader(redis: Redis): Promise<(() => number) | undefined> {
  const pid = Number(/^process_id:(\d+)/m.exec(await redis.info('server'))?.[1]);
  try {
    if (!readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('redis-server')) return undefined;
  } catch {
    return undefined;
  }
  return () => processCpuMicros(pid);
}

/** EVALSHA calls and the µs Redis spent inside them, from INFO commandstats (every client's). */
async function evalshaStats(redis: Redis): Promise<{ calls: number; usec: number }> {
  const line = /^cmdstat_evalsha:calls=(\d+),usec=(\d+)/m.exec(await redis.info('commandstats'));
  return { calls: Number(line?.[1] ?? 0), usec: Number(line?.[2] ?? 0) };
}

export async function measureSizes(url: string): Promise<PostgresSizes> {
  const sql = connectPostgres(url, { max: 1, onnotice: () => undefined, types: { bigint: postgres.BigInt } });
  try {
    // Freshly loaded rows: VACUUM sets their hint bits and visibility map, as production has.
    const started = performance.now();
    await sql`VACUUM (ANALYZE) meals`;
    const vacuumSeconds = Math.round(performance.now() - started) / 1000;
    const [row] = await sql<{ [name: string]: bigint }[]>`
      SELECT count(*) AS meals, pg_total_relation_size('meals') AS total, pg_relation_size('meals') AS heap,
        pg_relation_size('meals_pkey') AS pkey, pg_relation_size('meals_by_id') AS by_id,
        pg_database_size(current_database()) AS db
      FROM meals`;
    const n = (value: bigint | undefined) => Number(value ?? 0n);
    return {
      meals: n(row?.meals),
      totalBytes: n(row?.total),
      heapBytes: n(row?.heap),
      primaryKeyBytes: n(row?.pkey),
      byIdBytes: n(row?.by_id),
      databaseBytes: n(row?.db),
      vacuumSeconds,
    };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** An unseeded deployment's dataset: nothing was written, nothing measured. */
const EMPTY = {
  shape: { users: 0, mealsPerUser: 0, heavyUsers: 0, heavyMeals: 0, seed: '1' },
  seeding: { meals: 0, seconds: 0, cpuSeconds: 0, mealsPerSecond: 0 },
  sizes: {
    meals: 0,
    totalBytes: 0,
    heapBytes: 0,
    primaryKeyBytes: 0,
    byIdBytes: 0,
    databaseBytes: 0,
    vacuumSeconds: 0,
  },
} as const;

/**
 * Makes the scale-out deployment: a database of its own on the PostgreSQL server (created
 * here, dropped by stop()), seeded by the real `seed` command (or left `empty`, for scenarios
 * that make their own users, such as the long poll's), and `serve` on it with the shared
 * Redis limiter under a prefix of its own. Skipped, with the reason, when either server does
 * not answer. `moreServeArgs` (the webhook benchmark's `--webhook-allow-private --webhook-ca
 * FILE`) go to its server and into `serveArgs`, so a second instance takes them too; `serveEnv`
 * is its server's environment beside the benchmark's.
 */
export async function startScaleOut(
  options: BenchOptions,
  log: (line: string) => void,
  contents: 'seeded' | 'empty' = 'seeded',
  moreServeArgs: readonly string[] = [],
  serveEnv: Readonly<Record<string, string>> = {},
): Promise<ScaleOutStart> {
  const { pgUrl, redisUrl } = options;
  const missing = (await probePostgres(pgUrl)) ?? (await probeRedis(redisUrl));
  if (missing !== undefined) return { ok: false, reason: missing };

  const tag = randomBytes(5).toString('hex');
  const database = `meal_export_bench_${tag}`;
  const prefix = `meal-export-bench:${tag}:`;
  const dbUrl = new URL(pgUrl);
  dbUrl.pathname = `/${database}`;
  const admin = connectPostgres(pgUrl, { max: 1, onnotice: () => undefined });
  const redis = connectRedis(redisUrl);
  redis.on('error', () => undefined);
  const cleanUps: Array<() => Promise<unknown>> = [
    () => admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`),
    () => deleteKeysUnder(redis, prefix),
  ];
  const stop = async () => {
    for (const cleanUp of cleanUps.reverse())
      await cleanUp().catch((error: unknown) => log(`  clean-up: ${reasonOf(error)}`));
    redis.disconnect();
    await admin.end({ timeout: 1 });
  };
  try {
    await admin.unsafe(`CREATE DATABASE ${database}`);
    await redis.connect();
    const seeded = contents === 'seeded';
    const shape = seeded ? options.pgDataset : EMPTY.shape;
    log(`scale-out: database ${database}, Redis prefix ${prefix}${seeded ? '; seeding PostgreSQL…' : ' (empty)'}`);
    let { seeding, sizes }: { seeding: SeedRun; sizes: PostgresSizes } = EMPTY;
    if (seeded) {
      seeding = await seedDatabase(shape, dbUrl.href);
      log(`  seeded ${seeding.meals} meals in ${seeding.seconds} s: ${seeding.mealsPerSecond} meals/s`);
      sizes = await measureSizes(dbUrl.href);
    }
    // Redis's URL, like the store's, in the environment: out of argv (storeEnv says why).
    const serveArgs = ['--redis-prefix', prefix, ...moreServeArgs];
    const instanceEnv = { MEAL_EXPORT_REDIS_URL: redisUrl, ...serveEnv };
    const server = await startRealServer(dbUrl.href, undefined, serveArgs, instanceEnv);
    cleanUps.push(() => server.stop());
    // The server's own backends: PostgreSQL titles each `postgres: … USER DATABASE HOST(PORT) STATE`.
    const backends = () =>
      pidsWithCommandLine((line) => line.startsWith('postgres:') && line.includes(` ${database} `));
    const counters: Record<string, () => number | Promise<number>> = {};
    if (backends().length > 0) counters.postgres_cpu_us = () => processesCpuMicros(backends());
    const redisCpu = await redisCpuReader(redis);
    if (redisCpu !== undefined) counters.redis_cpu_us = redisCpu;
    // Redis's own time inside the limiter's script, without the network I/O around it.
    counters.redis_evalsha_calls = async () => (await evalshaStats(redis)).calls;
    counters.redis_evalsha_us = async () => (await evalshaStats(redis)).usec;
    const scaleOut: ScaleOut = {
      rowPrefix: 'pg-redis-',
      label: 'PostgreSQL + Redis',
      db: dbUrl.href,
      server: { ...server, probes: { pids: () => [server.pid], counters } },
      shape,
      seeding,
      sizes,
      serveArgs,
      serveEnv: instanceEnv,
      countersRead: Object.keys(counters),
      async redisBytesPerKey() {
        const keys = (await keysUnder(redis, prefix)).filter((key) => key.startsWith(`${prefix}rate:`));
        if (keys.length === 0) return null;
        let total = 0;
        for (const key of keys) total += (await redis.memory('USAGE', key)) ?? 0;
        return Math.round(total / keys.length);
      },
      stop,
    };
    return { ok: true, scaleOut };
  } catch (error) {
    await stop();
    throw error;
  }
}
