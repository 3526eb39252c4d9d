import { AppError } from '../errors.js';
import {
  isLimiterAnswer,
  LIMITER_REQUEST,
  type LimiterQuestion,
  type LimiterReply,
  type LimiterRequest,
} from './cluster-limiter-protocol.js';
import type { AuthFailureLimiter, RateDecision, RateLimiter, RateStanding } from './rate-limiter.js';

export interface ClusterLimiters {
  readonly limiter: RateLimiter;
  readonly authFailures: AuthFailureLimiter;
}

interface Pending {
  readonly settle: (answer: LimiterReply) => void;
  readonly fail: (error: AppError) => void;
  readonly timer: NodeJS.Timeout;
}

// The bound on a limiter's answer: past it the request is 503 unavailable, never a hang
// (docs/errors.md).
const DEFAULT_TIMEOUT_MS = 1_000;

/** A question as a caller asks it: its id is given when it is queued. */
type WithoutId<Q> = Q extends LimiterQuestion ? Omit<Q, 'id'> : never;
type Question = WithoutId<LimiterQuestion>;

/**
 * A cluster worker's limiters: each call asks the primary (ratelimit/cluster-limiter-host.ts),
 * which holds the one in-process limiter pair of the whole cluster, so the limits stay exact
 * across workers. The questions asked in one turn of the event loop leave together, in one
 * message, after it (setImmediate): one serialisation and one system call for all the requests
 * a turn read, on both sides. Time-bounded: with no answer within `timeoutMs` (a primary stuck or gone)
 * the call fails as `503 unavailable` with Retry-After, never a hang and never a 500.
 */
export function createClusterLimiters(timeoutMs = DEFAULT_TIMEOUT_MS): ClusterLimiters {
  if (process.send === undefined) throw new Error('cluster limiters need an IPC channel to the primary');
  const send: NonNullable<typeof process.send> = process.send.bind(process);
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let outbox: LimiterQuestion[] = [];

  const onMessage = (message: unknown) => {
    if (!isLimiterAnswer(message)) return;
    for (const reply of message.replies) {
      const waiting = pending.get(reply.id);
      if (waiting === undefined) continue; // answered after its deadline
      pending.delete(reply.id);
      clearTimeout(waiting.timer);
      waiting.settle(reply);
    }
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

  function flush(): void {
    const questions = outbox;
    outbox = [];
    const failAll = (cause: unknown) => {
      for (const { id } of questions) failNow(id, cause);
    };
    const request: LimiterRequest = { type: LIMITER_REQUEST, questions };
    try {
      send(request, undefined, {}, (error: Error | null) => {
        if (error !== null) failAll(error);
      });
    } catch (error) {
      failAll(error);
    }
  }

  function ask(question: Question): Promise<LimiterReply> {
    return new Promise((settle, fail) => {
      nextId += 1;
      const id = nextId;
      const timer = setTimeout(() => {
        pending.delete(id);
        fail(unavailable(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { settle, fail, timer });
      if (outbox.length === 0) setImmediate(flush);
      outbox.push({ ...question, id });
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
      // Read by the primary too: the one state of the cluster, on its clock. Its wait counts from
      // the primary's read, which came later than `now` by the question's trip: counted from
      // `now`, so that every worker names the same end of an interval, however busy the channel.
      async peek(keyId, now): Promise<RateStanding> {
        const answer = await ask({ op: 'peek', keyId });
        if ('standing' in answer) {
          const { standing, at } = answer;
          return standing.waitMs > 0 ? { ...standing, waitMs: Math.max(0, standing.waitMs + at - now) } : standing;
        }
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

function failure(answer: LimiterReply): AppError {
  return unavailable('error' in answer ? answer.error : 'an unexpected answer');
}
