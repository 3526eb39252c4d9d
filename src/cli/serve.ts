import cluster from 'node:cluster';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { runClusterPrimary } from '../cluster/primary.js';
import { runClusterWorker } from '../cluster/worker.js';
import type { ServeConfig } from '../serve/serve-config.js';
import { isPostgresUrl } from '../storage/open-storage.js';
import { listenForStopSignal, type StopSignal } from '../serve/stop-signal.js';
import { startServingAlone } from './serve-alone.js';
import { serveConfigOf } from './serve-config-args.js';

/** `serve`: runs the API until SIGTERM or SIGINT, then drains and exits 0. */
export async function runServe(argv: string[]): Promise<void> {
  // First of all: a signal that arrives while the service starts is a stop asked, not a death.
  const stop = listenForStopSignal();
  try {
    await serveUntilStopped(argv, stop);
  } finally {
    stop.stopListening();
  }
}

async function serveUntilStopped(argv: string[], stop: StopSignal): Promise<void> {
  const config = serveConfigOf(argv);
  // serve's data folder is the one folder a command makes for a store (docs/cli.md): the
  // store's own folder, when it is not the data folder, must exist.
  if (!isPostgresUrl(config.database) && path.resolve(path.dirname(config.database)) === path.resolve(config.dataDir)) {
    await mkdir(config.dataDir, { recursive: true });
  }
  // With --workers, this same command runs in the primary and in each worker it forks.
  if (config.workers > 1) await (cluster.isPrimary ? runClusterPrimary(config, stop) : runClusterWorker(config, stop));
  else await runAlone(config, stop);
}

/** One process serves (the default): the public listener, and the admin listener when asked. */
async function runAlone(config: ServeConfig, stop: StopSignal): Promise<void> {
  const { server, admin } = await startServingAlone(config);
  // Stopped while it started: no `listening on` line, since nothing will be served, and a
  // client or orchestrator told to proceed would find the port closing under it. The drain
  // below is the same either way.
  if ((await stop.receivedByNow()) === undefined) process.stdout.write(`listening on ${server.url}\n`);

  const signal = await stop.received;
  server.app.log.info({ signal }, 'shutting down: finishing the responses in flight');
  try {
    await server.close();
  } catch (err) {
    server.app.log.error({ err }, 'shutdown failed');
    process.exitCode = 1;
  }
  await admin?.close();
}
