import type { FastifyBaseLogger } from 'fastify';
import type { KeyAuthenticator } from '../keys/key-authenticator.js';
import { type KeyUseFlush, startKeyUseFlush } from './key-use-flush.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { ServeConfig } from './serve-config.js';
import type { Storage } from '../storage/storage.js';
import { startTombstonePruning } from './tombstone-pruning.js';
import { startErasureVacuum } from './erasure-vacuum.js';
import { type RunningWebhooks, startWebhooks } from '../webhooks/webhook-service.js';

/** What a server runs beside its answers; server-close.ts stops each at its place in the close. */
export interface BackgroundJobs {
  /** The key uses, written every 5 s and once more after the last response. */
  readonly keyUseFlush: KeyUseFlush;
  /** Stops the hourly tombstone pruning (a no-op in a cluster worker, which does not prune). */
  readonly stopPruning: () => void;
  /** Stops the looks for a vacuum an erasure left due (a no-op on SQLite and in a cluster worker). */
  readonly stopErasureVacuum: () => void;
  /** The webhook sender; undefined in a cluster worker. */
  readonly webhooks: RunningWebhooks | undefined;
}

export interface BackgroundJobsOptions {
  readonly log: FastifyBaseLogger;
  readonly version: string;
  readonly metrics: ServiceMetrics | undefined;
  /** A cluster worker leaves pruning and webhooks to its primary. */
  readonly clusterWorker: boolean;
}

/** Starts the jobs; resolves once the first tombstone prune is done (tombstone-pruning.ts). */
export async function startBackgroundJobs(
  storage: Storage,
  authenticator: KeyAuthenticator,
  config: ServeConfig,
  options: BackgroundJobsOptions,
): Promise<BackgroundJobs> {
  const { log, version } = options;
  // Every 5 s and on close: the counts a restarted limiter resumes from
  // (docs/operations.md#limits-across-restarts).
  const keyUseFlush = startKeyUseFlush(authenticator, log);
  // In a cluster the primary prunes, once for all workers (cluster/primary.ts).
  const stopPruning = !options.clusterWorker
    ? await startTombstonePruning(storage, config.tombstoneDays, log)
    : () => {};
  // And vacuums after erasures on PostgreSQL.
  const stopErasureVacuum = !options.clusterWorker ? await startErasureVacuum(storage, log) : () => {};
  // And sends the webhooks: one sender per instance (its store's leases share the work out).
  const webhooks = !options.clusterWorker
    ? startWebhooks(storage, config.webhooks, { log, version, metrics: options.metrics?.webhooks() })
    : undefined;
  return { keyUseFlush, stopPruning, stopErasureVacuum, webhooks };
}
