import { AppError } from '../errors.js';
import {
  isLimiterAnswer,
  LIMITER_REQUEST,
  type LimiterAnswer,
  type LimiterRequest,
} from './cluster-limiter-protocol.js';
import type { AuthFailureLimiter, RateDecision, RateLimiter, RateStanding } from './rate-limiter.js';

export interface ClusterLimiters {
  readonly limiter: RateLimiter;
  readonly authFailures: AuthFailureLimiter;
}

interface Pending {
  readonly settle: (answer: LimiterAnswer) => void;
  readonly fail: (error: AppError) => void;
  readonly timer: NodeJS.Timeout;
}

// The bound on a limiter's answer: past it the request is 503 unavailable, never a hang
// (docs/errors.md).
const DEFAULT_TIMEOUT_MS = 1_000;

type Question =
  | { readonly op: 'consume' | 'peek'; readonly keyId: string }
  | { readonly op: 'registerFailure'; readonly address: string }
  | { readonly op: 'ping' };

/**
 * A cluster worker's limiters: each call asks the primary (ratelimit/cluster-limiter-host.ts),
 * which holds the one in-process limiter pair of the whole cluster, so the limits stay exact
 * across workers. Time-bounded: with no answer within `timeoutMs` (a primary stuck or gone)
 * the call fails as `503 unavailable` with Retry-After, never a hang and never a 500.
 */
export function createClusterLimiters(timeoutMs = DEFAULT_TIMEOUT_MS): ClusterLimiters {
  if (process.send === undefined) throw new Error('cluster limiters need an IPC channel to the primary');
  const send: NonNullable<typeof process.send> = process.send.bind(process);
  const pending = new Map<number, Pending>();
  let nextId = 0;

  const onMessage = (message: unknown) => {
    if (!isLimiterAnswer(message)) return;
    const waiting = pending.get(message.id);
    if (waiting === undefined) return; // answered after its deadline
    pending.delete(message.id);
    clearTimeout(waiting.timer);
    waiting.settle(message);
  };
  const onDisconnect = () => {
    for (const waiting of pending.values()) {
      clearTimeout(waiting.timer);
      waiting.fail(unavailable('the primary process is gone'));
    }
    pending.clear();
  };
  process.on('message', onMessage);
  process.once('disconnect', onDisconnect);

  function ask(question: Question): Promise<LimiterAnswer> {
    return new Promise((settle, fail) => {
      nextId += 1;
      const id = nextId;
      const timer = setTimeout(() => {
        pending.delete(id);
        fail(unavailable(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { settle, fail, timer });
      const request: LimiterRequest = { type: LIMITER_REQUEST, id, ...question };
      try {
        send(request, undefined, {}, (error: Error | null) => {
          if (error !== null) failNow(id, error);
        });
      } catch (error) {
        failNow(id, error);
      }
    });
  }

  function failNow(id: number, cause: unknown): void {
    const waiting = pending.get(id);
    if (waiting === undefined) return;
    pending.delete(id);
    clearTimeout(waiting.timer);
    waiting.fail(unavailable('the primary process cannot be reached', cause));
  }

  async function close(): Promise<void> {
    process.off('message', onMessage);
    process.off('disconnect', onDisconnect);
  }

  return {
    limiter: {
      // `now` is not sent: the primary decides on its clock, in arrival order (cluster-limiter-host.ts).
      async consume(keyId): Promise<RateDecision> {
        const answer = await ask({ op: 'consume', keyId });
        if ('decision' in answer) return answer.decision;
        throw failure(answer);
      },
      // Read by the primary too: the one state of the cluster, on its clock.
      async peek(keyId): Promise<RateStanding> {
        const answer = await ask({ op: 'peek', keyId });
        if ('standing' in answer) return answer.standing;
        throw failure(answer);
      },
      async ping() {
        const answer = await ask({ op: 'ping' });
        if ('ok' in answer) return;
        throw failure(answer);
      },
      close,
    },
    authFailures: {
      async registerFailure(address) {
        const answer = await ask({ op: 'registerFailure', address });
        if ('waitMs' in answer) return answer.waitMs;
        throw failure(answer);
      },
      close,
    },
  };
}

function unavailable(reason: string, cause?: unknown): AppError {
  return new AppError('unavailable', 'The rate limiter is not answering: retry later.', {
    headers: { 'retry-after': '1' },
    cause: new Error(`cluster limiter: ${reason}`, cause === undefined ? undefined : { cause }),
  });
}

function failure(answer: LimiterAnswer): AppError {
  return unavailable('error' in answer ? answer.error : 'an unexpected answer');
}
