import type { Redis } from 'ioredis';
import { connectTestRedis, deleteKeysUnder, uniqueTestPrefix } from '../support/redis.js';

/** What a limiter suite's `open` gives: one instance per service instance over one fresh state. */
export interface OpenedInstances<T> {
  readonly instances: readonly [T, ...T[]];
  close(): Promise<void>;
}

/** Runs `work` on the first instance (and all of them), then closes them whatever happened. */
export async function withOpened<T>(
  opening: Promise<OpenedInstances<T>>,
  work: (first: T, instances: readonly T[]) => Promise<void>,
): Promise<void> {
  const opened = await opening;
  try {
    await work(opened.instances[0], opened.instances);
  } finally {
    await opened.close();
  }
}

/**
 * Two instances over one fresh prefix of the test Redis, each on a connection of its own: two
 * service instances sharing one Redis. Each case opens its own connections, so a suite needs no
 * hooks around it and can be registered whether or not Redis answers (it is then skipped whole).
 * The connections answer before the instances exist: connecting must not eat into a call's
 * deadline (the fallback wrappers give Redis 500 ms before deciding alone).
 */
export async function openOnTestRedis<T extends { close(): Promise<void> }>(
  label: string,
  make: (redis: Redis, prefix: string) => T,
): Promise<OpenedInstances<T>> {
  const prefix = uniqueTestPrefix(label);
  const connections = [connectTestRedis(), connectTestRedis()] as const;
  await Promise.all(connections.map((redis) => redis.ping())).catch((error: unknown) => {
    connections.forEach((redis) => redis.disconnect());
    throw error;
  });
  const instances = [make(connections[0], prefix), make(connections[1], prefix)] as const;
  return {
    instances,
    async close() {
      try {
        await Promise.all(instances.map((instance) => instance.close()));
        await deleteKeysUnder(connections[0], prefix);
      } finally {
        await Promise.all(connections.map((redis) => redis.quit()));
      }
    },
  };
}
