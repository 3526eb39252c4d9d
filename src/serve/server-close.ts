import type { FastifyInstance } from 'fastify';
import type { BackgroundJobs } from './background-jobs.js';
import type { ConnectionDrain } from '../listener/connection-drain.js';
import type { LimiterSet } from '../ratelimit/limiter-set.js';
import type { Storage } from '../storage/storage.js';
import type { RunningAppPage } from '../web/app-page.js';
import type { RunningHostApi } from '../host-api/host-listener.js';

const DRAIN_TIMEOUT_MS = 30_000;

/** Everything a started server holds, as its close releases it. */
export interface ServerParts {
  readonly app: FastifyInstance;
  /** The API listener's connections, cut when the drain's deadline passes. */
  readonly connections: ConnectionDrain | undefined;
  /** The app page: drained with the public listener, under the same deadline. */
  readonly appPage: RunningAppPage | undefined;
  /** The host API: drained with the public listener, under the same deadline. */
  readonly hostApi?: RunningHostApi | undefined;
  readonly jobs: BackgroundJobs;
  readonly limiters: LimiterSet;
  readonly storage: Storage;
  /** False for a store the caller opened: it is the caller's to close (its other users may still write). */
  readonly ownsStorage: boolean;
}

/**
 * Stops accepting, finishes the responses in flight (up to 30 s, then cuts their connections),
 * and releases the rest in the order that keeps every accepted request: the key uses are
 * written after the last response, and the store is closed last.
 */
export async function closeServer(parts: ServerParts): Promise<void> {
  const { app, jobs, storage } = parts;
  jobs.stopPruning();
  jobs.stopErasureVacuum();
  const webhooksStopped = jobs.webhooks?.stop();
  // server.close() drains through the server's closeIdleConnections (listener/connection-drain.ts).
  // The app page is drained with them: a page or CSV download in flight is answered too.
  const drained = Promise.all([app.close(), parts.hostApi?.close(), parts.appPage?.close()]);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), DRAIN_TIMEOUT_MS);
  });
  if ((await Promise.race([drained, deadline])) === 'deadline') {
    app.log.warn('responses still in flight after 30 s: closing their connections');
    parts.connections?.destroyAll();
    parts.hostApi?.connections?.destroyAll();
    parts.appPage?.connections?.destroyAll();
    await drained;
  }
  clearTimeout(timer);
  await webhooksStopped;
  // After the last response: every accepted request is in the store before the process ends.
  await jobs.keyUseFlush.stop();
  await parts.limiters.close();
  if (parts.ownsStorage) await storage.close();
}
