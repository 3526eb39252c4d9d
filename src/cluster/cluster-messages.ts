import { isRecord } from '../json-record.js';

/**
 * The messages between the primary and its workers about their life (the limiters have their
 * own, ratelimit/cluster-limiter-protocol.ts): a worker says it listens or could not start; the
 * primary tells a worker to drain.
 */
export const WORKER_LISTENING = 'meal-export:worker-listening';
export const WORKER_FAILED = 'meal-export:worker-failed';
export const DRAIN = 'meal-export:drain';

export type WorkerMessage =
  | { readonly type: typeof WORKER_LISTENING; readonly url: string }
  | { readonly type: typeof WORKER_FAILED; readonly message: string };

export function isWorkerMessage(message: unknown): message is WorkerMessage {
  if (!isRecord(message)) return false;
  if (message.type === WORKER_LISTENING) return typeof message.url === 'string';
  if (message.type === WORKER_FAILED) return typeof message.message === 'string';
  return false;
}

export function isDrainMessage(message: unknown): boolean {
  return isRecord(message) && message.type === DRAIN;
}
