import cluster from 'node:cluster';
import { resolveSetting } from '../config.js';
import { answerPrimaryScrapes } from '../metrics/cluster-metrics.js';
import { createServiceMetrics } from '../metrics/service-metrics.js';
import { createClusterLimiters } from '../ratelimit/cluster-limiter-client.js';
import type { ServeConfig } from '../serve/serve-config.js';
import { type RunningServer, startServer } from '../server.js';
import type { StopSignal } from '../serve/stop-signal.js';
import { DRAIN, isDrainMessage, WORKER_FAILED, WORKER_LISTENING, type WorkerMessage } from './cluster-messages.js';

/**
 * One worker of `serve --workers N`: the whole server on the port the primary shares, with the
 * primary's limiters (over IPC, so that limits stay exact across workers) and no maintenance
 * (the primary prunes tombstones). It tells the primary when it listens, and drains when the
 * primary says so (or on its own SIGTERM/SIGINT, `stop`, listened for since `serve` began:
 * Ctrl-C signals the whole process group), then leaves: every response in flight is sent in
 * full first (up to 30 s, server.ts).
 */
export async function runClusterWorker(config: ServeConfig, stop: StopSignal): Promise<void> {
  // Listened for first: a drain asked while the worker starts applies once it has started. An
  // IPC message that finds no listener is dropped, so the primary tells a worker to drain only
  // once it has said it listens (worker-fleet.ts), which it does after this.
  const drainAsked = new Promise<string>((resolve) => {
    process.on('message', (message: unknown) => {
      if (isDrainMessage(message)) resolve(DRAIN);
    });
    void stop.received.then(resolve);
  });
  const slot = resolveSetting(undefined, 'workerSlot', String(cluster.worker?.id ?? 0));
  const metrics = config.adminPort === undefined ? undefined : createServiceMetrics({ worker: slot });
  if (metrics !== undefined) answerPrimaryScrapes(metrics.registry);

  let server: RunningServer;
  try {
    server = await startServer(config, {
      ...(metrics === undefined ? {} : { metrics }),
      clusterWorker: {
        limiters:
          config.redisUrl === undefined
            ? createClusterLimiters({ minIntervalMs: config.minIntervalMs, dailyLimit: config.dailyLimit })
            : undefined,
      },
    });
  } catch (error) {
    // The primary reports it as the command's one-line failure (docs/cli.md#the-command-line).
    await tellPrimary({ type: WORKER_FAILED, message: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  }
  await tellPrimary({ type: WORKER_LISTENING, url: server.url });

  const reason = await drainAsked;
  server.app.log.info({ worker: slot, reason }, 'worker draining: finishing the responses in flight');
  try {
    await server.close();
  } catch (err) {
    server.app.log.error({ err }, 'shutdown failed');
    process.exitCode = 1;
  }
  // Closing the IPC channel lets the process end, with nothing left to do.
  cluster.worker?.disconnect();
}

function tellPrimary(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) resolve();
    else process.send(message, undefined, {}, () => resolve());
  });
}
