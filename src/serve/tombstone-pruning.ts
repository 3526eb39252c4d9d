import type { FastifyBaseLogger } from 'fastify';
import { tombstonePruneCutoff } from '../domain/tombstone-retention.js';
import type { Storage } from '../storage/storage.js';
import { pruneInPieces } from '../storage/tombstone-pieces.js';

const PRUNE_EVERY_MS = 3_600_000;

/**
 * Prunes tombstones past the retention when `serve` starts and every hour while it runs
 * (docs/api.md#staying-in-sync). One process of a host does it: the single server, or with
 * `--workers` the cluster's primary, never each worker. Resolves once the first prune is done;
 * the returned function stops the hourly runs.
 */
export async function startTombstonePruning(
  storage: Storage,
  tombstoneDays: number,
  log: FastifyBaseLogger,
): Promise<() => void> {
  let stopped = false;
  async function prune(): Promise<void> {
    try {
      const cutoff = tombstonePruneCutoff(Date.now(), tombstoneDays);
      const removed = await pruneInPieces(storage.writes, cutoff, { stopped: () => stopped });
      if (removed > 0) log.info({ removed }, 'pruned tombstones');
    } catch (err) {
      log.warn({ err }, 'could not prune tombstones');
    }
  }
  await prune();
  const timer = setInterval(() => void prune(), PRUNE_EVERY_MS);
  timer.unref();
  return () => {
    // A prune under way stops after its piece: the store is closing.
    stopped = true;
    clearInterval(timer);
  };
}
