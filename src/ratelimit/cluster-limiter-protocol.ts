import { isRecord } from '../json-record.js';
import type { RateDecision, RateStanding } from './rate-limiter.js';

/**
 * The messages between cluster workers and the primary that holds the in-process limiters
 * (`serve --workers N` without Redis): a worker asks, the primary decides and answers. Over
 * Node's IPC channel, JSON-serialised. No time is sent: the primary decides on its own clock
 * (cluster-limiter-host.ts).
 */
export const LIMITER_REQUEST = 'meal-export:limiter-request';
export const LIMITER_ANSWER = 'meal-export:limiter-answer';

export type LimiterRequest =
  | {
      readonly type: typeof LIMITER_REQUEST;
      readonly id: number;
      readonly op: 'consume' | 'peek';
      readonly keyId: string;
    }
  | {
      readonly type: typeof LIMITER_REQUEST;
      readonly id: number;
      readonly op: 'registerFailure';
      readonly address: string;
    }
  | { readonly type: typeof LIMITER_REQUEST; readonly id: number; readonly op: 'ping' };

export type LimiterAnswer =
  | { readonly type: typeof LIMITER_ANSWER; readonly id: number; readonly decision: RateDecision }
  | { readonly type: typeof LIMITER_ANSWER; readonly id: number; readonly standing: RateStanding }
  | { readonly type: typeof LIMITER_ANSWER; readonly id: number; readonly waitMs: number }
  | { readonly type: typeof LIMITER_ANSWER; readonly id: number; readonly ok: true }
  | { readonly type: typeof LIMITER_ANSWER; readonly id: number; readonly error: string };

export function isLimiterRequest(message: unknown): message is LimiterRequest {
  if (!isRecord(message) || message.type !== LIMITER_REQUEST || typeof message.id !== 'number') return false;
  switch (message.op) {
    case 'consume':
    case 'peek':
      return typeof message.keyId === 'string';
    case 'registerFailure':
      return typeof message.address === 'string';
    case 'ping':
      return true;
    default:
      return false;
  }
}

export function isLimiterAnswer(message: unknown): message is LimiterAnswer {
  return isRecord(message) && message.type === LIMITER_ANSWER && typeof message.id === 'number';
}
