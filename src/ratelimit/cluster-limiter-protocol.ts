import { isRecord } from '../json-record.js';
import { isKeyHandover, type KeyHandover } from './key-handover.js';
import type { RateDecision, RateStanding } from './rate-limiter.js';

/**
 * The messages between cluster workers and the primary that holds the in-process limiters
 * (`serve --workers N` without Redis): a worker asks, the primary decides and answers. Over
 * Node's IPC channel, JSON-serialised. No time is sent: the primary decides on its own clock
 * (cluster-limiter-host.ts). A message carries every question a worker asked in one turn of
 * its event loop, and its answer every reply: an IPC message costs both processes a
 * serialisation and a system call, whatever it holds, so requests that arrive together share one.
 */
export const LIMITER_REQUEST = 'meal-export:limiter-request';
export const LIMITER_ANSWER = 'meal-export:limiter-answer';
/** Primary to worker: hand these keys' leases back (another worker asked about them). */
export const LEASE_RECALL = 'meal-export:lease-recall';
/** Worker to primary: the recalled keys' states; the worker decides them no more. */
export const LEASE_RETURN = 'meal-export:lease-return';

export type LimiterQuestion =
  | { readonly id: number; readonly op: 'consume' | 'peek'; readonly keyId: string }
  | { readonly id: number; readonly op: 'registerFailure'; readonly address: string }
  | { readonly id: number; readonly op: 'ping' };

export type LimiterReply =
  /** `lease`: the key's state after the decision; the worker decides its next requests itself. */
  | { readonly id: number; readonly decision: RateDecision; readonly lease?: KeyHandover }
  /** The asking worker holds the key's lease (granted in an answer it had not read when it asked). */
  | { readonly id: number; readonly leased: true }
  /** `at`: the primary's wall-clock instant of the read, which its `waitMs` counts from. */
  | { readonly id: number; readonly standing: RateStanding; readonly at: number }
  | { readonly id: number; readonly waitMs: number }
  | { readonly id: number; readonly ok: true }
  | { readonly id: number; readonly error: string };

export interface LimiterRequest {
  readonly type: typeof LIMITER_REQUEST;
  readonly questions: readonly LimiterQuestion[];
}

export interface LimiterAnswer {
  readonly type: typeof LIMITER_ANSWER;
  readonly replies: readonly LimiterReply[];
}

export interface LeaseRecall {
  readonly type: typeof LEASE_RECALL;
  readonly keyIds: readonly string[];
}

export interface LeaseReturn {
  readonly type: typeof LEASE_RETURN;
  readonly returned: readonly { readonly keyId: string; readonly handover: KeyHandover }[];
}

export function isLeaseRecall(message: unknown): message is LeaseRecall {
  return (
    isRecord(message) &&
    message.type === LEASE_RECALL &&
    Array.isArray(message.keyIds) &&
    message.keyIds.every((keyId) => typeof keyId === 'string')
  );
}

export function isLeaseReturn(message: unknown): message is LeaseReturn {
  return (
    isRecord(message) &&
    message.type === LEASE_RETURN &&
    Array.isArray(message.returned) &&
    message.returned.every((item) => isRecord(item) && typeof item.keyId === 'string' && isKeyHandover(item.handover))
  );
}

function isLimiterQuestion(question: unknown): question is LimiterQuestion {
  if (!isRecord(question) || typeof question.id !== 'number') return false;
  switch (question.op) {
    case 'consume':
    case 'peek':
      return typeof question.keyId === 'string';
    case 'registerFailure':
      return typeof question.address === 'string';
    case 'ping':
      return true;
    default:
      return false;
  }
}

export function isLimiterRequest(message: unknown): message is LimiterRequest {
  return (
    isRecord(message) &&
    message.type === LIMITER_REQUEST &&
    Array.isArray(message.questions) &&
    message.questions.every(isLimiterQuestion)
  );
}

export function isLimiterAnswer(message: unknown): message is LimiterAnswer {
  return (
    isRecord(message) &&
    message.type === LIMITER_ANSWER &&
    Array.isArray(message.replies) &&
    message.replies.every((reply) => isRecord(reply) && typeof reply.id === 'number')
  );
}
