import { PACKAGE_VERSION } from '../version.js';
import { startWebhooks } from '../webhooks/webhook-service.js';
import { createStartupLogger } from '../logger.js';
import { startAdminListener } from '../metrics/admin-listener.js';
import { createPrimaryMetrics } from '../metrics/cluster-metrics.js';
import { hostLimitersForWorkers } from '../ratelimit/cluster-limiter-host.js';
import { createMemoryRateLimiter } from '../ratelimit/memory.js';
import { createMemoryAuthFailureLimiter } from '../ratelimit/memory-auth-failures.js';
import { loadUsedQuota } from '../ratelimit/used-quota.js';
import type { ServeConfig } from '../serve/serve-config.js';
import { loadServeTls, logTransport } from '../serve/serve-tls.js';
import { logStoreAndLimiter } from '../serve/start-log.js';
import type { StopSignal } from '../serve/stop-signal.js';
import { openStorage } from '../storage/open-storage.js';
import { startTombstonePruning } from '../serve/tombstone-pruning.js';
import { startWorkerFleet, type WorkerFleet } from './worker-fleet.js';

/**
 * The primary of `serve --workers N` (docs/operations.md#workers---workers-n); it serves no request.
 * Before any worker starts it migrates the store and makes the certificate, once; it alone prunes
 * tombstones (at start and hourly); it holds the cluster's in-process limiters, leasing each key to the
 * worker its requests come to and deciding over IPC the keys several workers ask about, so limits stay
 * exact across workers (resumed from the counts flushed before a restart); it sums
 * every worker's /metrics on the admin listener. It prints `listening on` once every worker listens,
 * and on SIGTERM or SIGINT (`stop`, heard since `serve` began) tells each worker to drain and exits once
 * all have; a signal while the fleet starts stops it the same way, without the line.
 */
export async function runClusterPrimary(config: ServeConfig, stop: StopSignal): Promise<void> {
  // Held until every worker listens: a port in use is then the command's one line (serve.ts).
  const startup = createStartupLogger(config.logLevel);
  const log = startup.log;
  const storage = await openStorage(config.database, { serving: true, directDatabase: config.directDatabase, log });
  const release: (() => Promise<void> | void)[] = [() => storage.close()];
  async function releaseAll(): Promise<void> {
    for (const step of release.reverse()) await step();
  }

  try {
    logStoreAndLimiter(log, config, 'primary');
    logTransport(log, await loadServeTls(config));
    release.push(await startTombstonePruning(storage, config.tombstoneDays, log));
    const policy = { minIntervalMs: config.minIntervalMs, dailyLimit: config.dailyLimit };
    // With Redis the workers share limits there; without it, here, for every worker, resuming
    // each key's day from the store before any worker starts (ratelimit/used-quota.ts).
    if (config.redisUrl === undefined) {
      const used = await loadUsedQuota(storage.quota, policy, Date.now());
      const limiters = {
        limiter: createMemoryRateLimiter(policy, { used }),
        authFailures: createMemoryAuthFailureLimiter(),
      };
      release.push(() => Promise.all([limiters.limiter.close(), limiters.authFailures.close()]).then(() => {}));
      // A key leased to a worker that died resumes from the counts the store has (a crash's loss).
      const usedToday = async (keyIds: readonly string[]) => {
        const wanted = new Set(keyIds);
        const flushed = await loadUsedQuota(storage.quota, policy, Date.now());
        return new Map(flushed.keys.filter((key) => wanted.has(key.keyId)).map((key) => [key.keyId, key.usedToday]));
      };
      release.push(hostLimitersForWorkers(limiters, usedToday));
    }
    const metrics = config.adminPort === undefined ? undefined : createPrimaryMetrics(log);
    // The webhooks of the whole host go out from here (the workers send none).
    const webhooks = startWebhooks(storage, config.webhooks, {
      log,
      version: PACKAGE_VERSION,
      metrics: metrics?.webhooks,
    });
    release.push(() => webhooks.stop());
    // Scrapes ask the workers that listen; none until the fleet below has started.
    const serving: { workers: WorkerFleet['listeningWorkers'] } = { workers: () => [] };
    if (metrics !== undefined && config.adminPort !== undefined) {
      // Bound before any worker starts: a port in use fails the command at once.
      const admin = await startAdminListener(config.adminPort, () => metrics.scrape(serving.workers()), log);
      release.push(() => admin.close());
    }

    const fleet = startWorkerFleet(config.workers, log, metrics);
    serving.workers = fleet.listeningWorkers;
    let url: string | undefined;
    try {
      // A signal while the workers start does not wait for all of them to listen.
      url = await Promise.race([fleet.ready, stop.received.then(() => undefined)]);
    } catch (error) {
      await fleet.stop();
      throw error;
    }
    startup.release();
    // Stopped while it started: no `listening on` line, for nothing will be served (serve.ts).
    if (url !== undefined && (await stop.receivedByNow()) === undefined) {
      process.stdout.write(`listening on ${url}\n`);
      log.info({ url, workers: config.workers }, 'listening');
    }

    const signal = await stop.received;
    log.info({ signal }, 'shutting down: every worker finishes the responses in flight');
    if (!(await fleet.stop())) {
      log.error('a worker did not drain cleanly');
      process.exitCode = 1;
    }
  } catch (error) {
    startup.discard();
    throw error;
  } finally {
    await releaseAll();
  }
}
