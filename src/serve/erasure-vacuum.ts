import type { FastifyBaseLogger } from 'fastify';
import type { Storage } from '../storage/storage.js';

/** How often a serving instance asks whether an erasure left a vacuum due (docs/operations.md#erasure-and-backups). */
export const ERASURE_VACUUM_LOOK_MS = 60_000;

/**
 * On PostgreSQL, the tables an erasure deleted from are vacuumed within minutes, whoever erased
 * (a command, meal-export/host, the host API of any instance): one serving process of each
 * instance looks every minute, and one instance at a time runs it (storage/user-erasure.ts).
 * Resolves after the first look; the returned function stops the looks.
 */
export async function startErasureVacuum(
  storage: Storage,
  log: FastifyBaseLogger,
  everyMs: number = ERASURE_VACUUM_LOOK_MS,
): Promise<() => void> {
  async function look(): Promise<void> {
    try {
      if (await storage.erasure.vacuumErased(Date.now())) log.info('vacuumed the tables of erased users');
    } catch (err) {
      log.warn({ err }, 'could not vacuum the tables of erased users');
    }
  }
  if (storage.kind !== 'postgres') return () => {};
  await look();
  const timer = setInterval(() => void look(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
