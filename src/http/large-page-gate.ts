/**
 * Bounds the memory large pages hold (docs/capacity.md#service-instances). Pages above `smallPageLimit`
 * meals share a budget of `capacity` meals (by their `limit`, known before the query): past it they
 * wait their turn, first come first served, before their query runs; with one core either way, waiting
 * costs no throughput. Small pages, the common case, never wait. A page gives its share back when its
 * response closes (sent or abandoned), or after `maxHoldMs` at the latest, so that clients that stop
 * reading cannot keep everyone else waiting.
 */
export interface LargePageGate {
  /** Resolves when a page of `limit` meals may be produced; call the release once it is sent. */
  admit(limit: number): Promise<() => void> | undefined;
}

/** Told of each large page once it is admitted, with how long it waited (0: at once), for /metrics. */
export interface LargePageObserver {
  admitted(waitedMs: number): void;
}

export interface LargePageGateOptions {
  readonly smallPageLimit: number;
  readonly capacity: number;
  readonly maxHoldMs: number;
  readonly observer?: LargePageObserver;
}

interface Waiter {
  readonly weight: number;
  readonly admitted: (release: () => void) => void;
}

export function createLargePageGate(options: LargePageGateOptions): LargePageGate {
  let available = options.capacity;
  const waiting: Waiter[] = [];

  function grant(weight: number): () => void {
    available -= weight;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(deadline);
      available += weight;
      while (waiting.length > 0 && (waiting[0]?.weight ?? Infinity) <= available) {
        const next = waiting.shift();
        next?.admitted(grant(next.weight));
      }
    };
    const deadline = setTimeout(release, options.maxHoldMs);
    deadline.unref();
    return release;
  }

  return {
    admit(limit) {
      if (limit <= options.smallPageLimit) return undefined;
      // One page larger than the whole budget still gets through, alone.
      const weight = Math.min(limit, options.capacity);
      if (waiting.length === 0 && weight <= available) {
        options.observer?.admitted(0);
        return Promise.resolve(grant(weight));
      }
      const since = performance.now();
      return new Promise((admitted) =>
        waiting.push({
          weight,
          admitted: (release) => {
            options.observer?.admitted(performance.now() - since);
            admitted(release);
          },
        }),
      );
    },
  };
}
