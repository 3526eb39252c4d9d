import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';
import type { Scrape } from './admin-listener.js';

/** One process's registry as the admin listener serves it (`serve` without `--workers`). */
export function scrapeRegistry(registry: Registry): Scrape {
  return async () => ({ contentType: registry.contentType, text: await registry.metrics() });
}

/**
 * Makes a worker's registry answer the primary's scrapes (prom-client's cluster protocol over
 * the IPC channel). Each series carries the worker's `worker` label, so one scrape shows every
 * worker.
 */
export function exposeToPrimary(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs the worker's listener for the primary's requests.
  new AggregatorRegistry();
}

/** What the primary itself counts, next to its workers' metrics. */
export interface PrimaryMetrics {
  workerRestarted(): void;
  workersListening(count: number): void;
  /** All workers' metrics (asked over IPC, 5 s at most) followed by the primary's own. */
  readonly scrape: Scrape;
}

export function createPrimaryMetrics(): PrimaryMetrics {
  const aggregator = new AggregatorRegistry();
  // No default process metrics here: the workers report theirs, under the same names.
  const registry = new Registry();
  const restarts = new Counter({
    name: 'meal_export_worker_restarts_total',
    help: 'Workers started again after an unexpected exit.',
    registers: [registry],
  });
  const listening = new Gauge({
    name: 'meal_export_workers_listening',
    help: 'Workers serving the public port now.',
    registers: [registry],
  });
  return {
    workerRestarted: () => restarts.inc(),
    workersListening: (count) => listening.set(count),
    async scrape() {
      const [workers, own] = await Promise.all([aggregator.clusterMetrics(), registry.metrics()]);
      return { contentType: registry.contentType, text: `${workers}${own}` };
    },
  };
}
