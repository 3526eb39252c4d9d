import cluster, { type Worker } from 'node:cluster';
import type { FastifyBaseLogger } from 'fastify';
import { ENV } from '../config.js';
import { CliError } from '../errors.js';
import type { PrimaryMetrics } from '../metrics/cluster-metrics.js';
import { DRAIN, isWorkerMessage, WORKER_LISTENING } from './cluster-messages.js';
import { nextQuickExits, restartDelayMs } from './restart-backoff.js';

export interface WorkerFleet {
  /** The public URL once every worker listens; rejects (a CliError) when one cannot start. */
  readonly ready: Promise<string>;
  /** Asks every worker to drain; resolves once all have exited: true when all exited 0. */
  stop(): Promise<boolean>;
  /** The workers serving now (a scrape asks these only: one still starting would not answer). */
  listeningWorkers(): Worker[];
}

interface Slot {
  readonly number: number;
  worker: Worker | undefined;
  startedAt: number;
  listening: boolean;
  quickExits: number;
  failure: string | undefined;
  restart: NodeJS.Timeout | undefined;
}

// Workers drain for up to 30 s (server.ts); one that has not exited 5 s later is killed.
const STOP_DEADLINE_MS = 35_000;

/**
 * The primary's workers, numbered 1..count: forks them, and starts again (after a back-off,
 * cluster/restart-backoff.ts) any that exits without being asked to. Before every worker has
 * listened once, an exit is the command's failure instead: a port in use or a bad certificate
 * fails every worker alike, and must not restart forever.
 */
export function startWorkerFleet(
  count: number,
  log: FastifyBaseLogger,
  metrics: PrimaryMetrics | undefined,
): WorkerFleet {
  const slots: Slot[] = Array.from({ length: count }, (_, i) => ({
    number: i + 1,
    worker: undefined,
    startedAt: 0,
    listening: false,
    quickExits: 0,
    failure: undefined,
    restart: undefined,
  }));
  let settled = false;
  let serving = false;
  let stopping: Promise<boolean> | undefined;
  let allExited: (() => void) | undefined;
  let clean = true;
  let resolveReady: (url: string) => void = () => {};
  let rejectReady: (error: Error) => void = () => {};
  const ready = new Promise<string>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });

  function countListening(): number {
    const listening = slots.filter((slot) => slot.listening).length;
    metrics?.workersListening(listening);
    return listening;
  }

  function fork(slot: Slot): void {
    slot.restart = undefined;
    const worker = cluster.fork({ [ENV.workerSlot]: String(slot.number) });
    Object.assign(slot, { worker, startedAt: Date.now(), listening: false, failure: undefined });
    log.info({ worker: slot.number, workerPid: worker.process.pid }, 'worker started');
    worker.on('message', (message: unknown) => {
      if (!isWorkerMessage(message)) return;
      if (message.type === WORKER_LISTENING) {
        slot.listening = true;
        if (stopping !== undefined) {
          // Asked to stop while this worker started: now it hears the drain (see stop()).
          drain(worker);
          return;
        }
        if (countListening() === count && !settled) {
          settled = true;
          serving = true;
          resolveReady(message.url);
        }
      } else {
        slot.failure = message.message;
        // Before every worker has listened, the failure is the command's own (its one line).
        if (serving && stopping === undefined)
          log.error({ worker: slot.number, reason: message.message }, 'worker could not start');
      }
    });
    worker.on('exit', (code, signal) => exited(slot, worker, code, signal));
  }

  function exited(slot: Slot, worker: Worker, code: number | null, signal: string | null): void {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    slot.listening = false;
    countListening();
    if (stopping !== undefined) {
      if (code !== 0) clean = false;
      log.info({ worker: slot.number, workerPid: worker.process.pid, code, signal }, 'worker exited');
      if (slots.every((s) => s.worker === undefined)) allExited?.();
      return;
    }
    // Before the service was ever ready, an exit fails the command (once); no restart.
    if (!serving) {
      if (settled) return;
      settled = true;
      const reason = slot.failure ?? `worker ${slot.number} exited (code ${code}, signal ${signal}) before it listened`;
      rejectReady(new CliError(reason));
      return;
    }
    slot.quickExits = nextQuickExits(slot.quickExits, Date.now() - slot.startedAt);
    const delayMs = restartDelayMs(slot.quickExits);
    log.warn(
      { worker: slot.number, workerPid: worker.process.pid, code, signal, restartInMs: delayMs },
      'worker exited unexpectedly: starting it again',
    );
    slot.restart = setTimeout(() => {
      metrics?.workerRestarted();
      fork(slot);
    }, delayMs);
  }

  function stop(): Promise<boolean> {
    stopping ??= new Promise<boolean>((resolve) => {
      const deadline = setTimeout(() => {
        log.warn('workers still running 35 s after the drain began: killing them');
        for (const slot of slots) slot.worker?.process.kill('SIGKILL');
      }, STOP_DEADLINE_MS);
      allExited = () => {
        clearTimeout(deadline);
        resolve(clean);
      };
      for (const slot of slots) {
        clearTimeout(slot.restart);
        // A worker still starting may not listen for messages yet, and an IPC message nobody
        // listens for is dropped: it is told to drain once it says it listens (fork()), which
        // it says after it has begun to listen for the drain (worker.ts).
        if (slot.worker !== undefined && (slot.listening || !slot.worker.isConnected())) drain(slot.worker);
      }
      if (slots.every((s) => s.worker === undefined)) allExited();
    });
    return stopping;
  }

  function drain(worker: Worker): void {
    if (worker.isConnected()) worker.send({ type: DRAIN }, undefined, () => {});
    else worker.process.kill('SIGTERM');
  }

  for (const slot of slots) fork(slot);
  return {
    ready,
    stop,
    listeningWorkers: () => slots.flatMap((slot) => (slot.listening && slot.worker !== undefined ? [slot.worker] : [])),
  };
}
