/**
 * Gathers single lookups into paced batches, each one call of `loadMany`: one in flight, each at
 * least `minIntervalMs` after the last and of at most `maxBatch` keys (the rest wait). So the store
 * sees at most 1000 / minIntervalMs calls a second from here, and a lookup waits about one interval
 * plus one call while arrivals stay under maxBatch an interval. The key authenticator sends blocked
 * addresses' lookups through it: a flood of made-up keys must not cost the store a query each, yet a
 * valid key from such an address must still pass (docs/api.md#keys, docs/reliability.md#figures).
 */
export interface PacedBatches<K, V> {
  load(key: K): Promise<V>;
  /** Lookups waiting for their batch (the running one not included). */
  readonly waiting: number;
}

export interface PacedBatchesOptions {
  readonly minIntervalMs: number;
  readonly maxBatch: number;
}

interface Waiter<K, V> {
  readonly key: K;
  readonly resolve: (value: V) => void;
  readonly reject: (error: unknown) => void;
}

export function createPacedBatches<K, V>(
  loadMany: (keys: readonly K[]) => Promise<readonly V[]>,
  options: PacedBatchesOptions,
): PacedBatches<K, V> {
  const queue: Waiter<K, V>[] = [];
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let lastStart = Number.NEGATIVE_INFINITY;

  function schedule(): void {
    if (running || timer !== undefined || queue.length === 0) return;
    const wait = Math.max(0, lastStart + options.minIntervalMs - performance.now());
    timer = setTimeout(run, wait);
  }

  async function run(): Promise<void> {
    timer = undefined;
    running = true;
    lastStart = performance.now();
    const batch = queue.splice(0, options.maxBatch);
    try {
      const values = await loadMany(batch.map((waiter) => waiter.key));
      batch.forEach((waiter, i) => waiter.resolve(values[i] as V));
    } catch (error) {
      for (const waiter of batch) waiter.reject(error);
    } finally {
      running = false;
      schedule();
    }
  }

  return {
    load(key) {
      return new Promise<V>((resolve, reject) => {
        queue.push({ key, resolve, reject });
        schedule();
      });
    },
    get waiting() {
      return queue.length;
    },
  };
}
