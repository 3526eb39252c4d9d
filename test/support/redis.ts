import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';
import { makeTempDir } from './project.js';
import { skipUnlessRequired } from './required-services.js';
import { after, before } from 'node:test';

/** The Redis the shared-limiter tests use: the machine's, unless MEAL_EXPORT_TEST_REDIS_URL says otherwise. */
export const TEST_REDIS_URL = process.env.MEAL_EXPORT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Why the Redis tests cannot run here (printed as the skip reason), or undefined when Redis answers. */
export async function redisSkipReason(url: string = TEST_REDIS_URL): Promise<string | undefined> {
  return skipUnlessRequired(await probeRedis(url));
}

async function probeRedis(url: string): Promise<string | undefined> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 1000, retryStrategy: () => null });
  let socketError: Error | undefined;
  redis.on('error', (err: Error) => {
    socketError = err;
  });
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (err) {
    const reason = (socketError ?? (err instanceof Error ? err : new Error(String(err)))).message;
    return `no Redis answers at ${url} (${reason}): start one, or set MEAL_EXPORT_TEST_REDIS_URL`;
  } finally {
    redis.disconnect();
  }
}

/** Why a private redis-server cannot be started here, or undefined when the binary runs. */
export function redisServerSkipReason(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return skipUnlessRequired(
    probe.status === 0 ? undefined : 'no redis-server binary on PATH: install redis-server to run these tests',
  );
}

/** A plain client for a test's own checks and clean-up. */
export function connectTestRedis(url: string = TEST_REDIS_URL): Redis {
  return new Redis(url, { maxRetriesPerRequest: 1 });
}

/** A prefix no other test run uses, so runs on one Redis never see each other's keys. */
export function uniqueTestPrefix(label: string): string {
  return `meal-export-test:${label}:${randomBytes(6).toString('hex')}:`;
}

/** Every key under `prefix`. */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/** Deletes every key under `prefix`: a test's clean-up. */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<void> {
  const keys = await keysUnder(redis, prefix);
  if (keys.length > 0) await redis.unlink(...keys);
}

export interface PrivateRedisServer {
  readonly url: string;
  readonly port: number;
  /** SIGTERM and wait for the exit (nothing is saved: the data goes away). */
  stop(): Promise<void>;
  /** Starts again on the same port, empty (its script cache too). */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

/**
 * A redis-server of the test's own on a free port, in memory only (`--save "" --appendonly
 * no`), for tests that stop it; the machine's shared Redis is never stopped.
 */
export async function startPrivateRedisServer(): Promise<PrivateRedisServer> {
  const port = await freePort();
  const temp = makeTempDir('redis');
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    const started = spawn('redis-server', [...args, '--dir', temp.dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server not ready in 10 s:\n${output}`)), 10_000);
      started.stdout?.on('data', (d: Buffer) => {
        output += d.toString('utf8');
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited ${code}:\n${output}`));
      });
    });
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    await exited;
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    async close() {
      await stop();
      temp.remove();
    },
  };
}

export interface TestRedisPair {
  /** Two connections to the test Redis: two service instances sharing one Redis. */
  readonly connections: [Redis, Redis];
  /** A key prefix no other case uses; every key under it is deleted after the suite. */
  freshPrefix(): string;
}

/**
 * For the enclosing describe: two connections opened before its cases and closed after them,
 * and fresh prefixes whose keys are deleted then.
 */
export function useTestRedisPair(label: string): TestRedisPair {
  let connections: [Redis, Redis] | undefined;
  const prefixes: string[] = [];
  before(() => {
    connections = [connectTestRedis(), connectTestRedis()];
  });
  after(async () => {
    if (connections === undefined) return;
    for (const prefix of prefixes) await deleteKeysUnder(connections[0], prefix);
    await Promise.all(connections.map((redis) => redis.quit()));
  });
  const pair: TestRedisPair = {
    get connections() {
      if (connections === undefined) throw new Error('the Redis connections open before the first case');
      return connections;
    },
    freshPrefix() {
      const prefix = uniqueTestPrefix(label);
      prefixes.push(prefix);
      return prefix;
    },
  };
  return pair;
}
