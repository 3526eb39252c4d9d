import { AppError } from '../errors.js';
import {
  isLeaseRecall,
  isLimiterAnswer,
  LEASE_RETURN,
  LIMITER_REQUEST,
  type LeaseReturn,
  type LimiterQuestion,
  type LimiterReply,
  type LimiterRequest,
} from './cluster-limiter-protocol.js';
import { createMemoryRateLimiter } from './memory.js';
import type { AuthFailureLimiter, RateDecision, RateLimiter, RateLimitPolicy, RateStanding } from './rate-limiter.js';

export interface ClusterLimiters {
  readonly limiter: RateLimiter;
  readonly authFailures: AuthFailureLimiter;
}

interface Pending {
  /** The key asked about, whose lease the answer may carry. */
  readonly keyId: string | undefined;
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
/** A key leased to this worker is asked about again at most this many times when the answer says so. */
const MAX_ASKS = 3;

/**
 * A cluster worker's limiters (ratelimit/cluster-limiter-host.ts). A key whose lease this worker
 * holds is decided here, by an in-process limiter, with no question asked: the primary granted
 * it with the answer to the key's first request here, and takes it back (LEASE_RECALL) when
 * another worker asks about the key. Every other key, and the brute-force guard, is decided by
 * the primary, which holds the cluster's state, so the limits stay exact across workers. The
 * questions asked in one turn of the event loop leave together, in one message, after it
 * (setImmediate): one serialisation and one system call for all the requests a turn read, on
 * both sides. Time-bounded: with no answer within `timeoutMs` (a primary stuck or gone) the call
 * fails as `503 unavailable` with Retry-After, never a hang and never a 500.
 */
export function createClusterLimiters(policy: RateLimitPolicy, timeoutMs = DEFAULT_TIMEOUT_MS): ClusterLimiters {
  if (process.send === undefined) throw new Error('cluster limiters need an IPC channel to the primary');
  const send: NonNullable<typeof process.send> = process.send.bind(process);
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let outbox: LimiterQuestion[] = [];
  /** The keys whose lease this worker holds, decided by `leased`. */
  const held = new Set<string>();
  const leased = createMemoryRateLimiter(policy);

  const onMessage = (message: unknown) => {
    if (isLeaseRecall(message)) {
      // The primary recalls only keys it leased here, in an answer sent (and so read) before.
      const now = Date.now();
      const returned = message.keyIds.map((keyId) => {
        held.delete(keyId);
        return { keyId, handover: leased.handOver(keyId, now) };
      });
      const back: LeaseReturn = { type: LEASE_RETURN, returned };
      send(back, undefined, {}, () => {});
      return;
    }
    if (!isLimiterAnswer(message)) return;
    for (const reply of message.replies) {
      const waiting = pending.get(reply.id);
      if (waiting === undefined) continue; // answered after its deadline
      pending.delete(reply.id);
      clearTimeout(waiting.timer);
      // Taken before the answer is read, so that the key's next question, answered `leased`
      // in the same message, finds it here.
      if ('lease' in reply && reply.lease !== undefined && waiting.keyId !== undefined) {
        leased.takeOver(waiting.keyId, reply.lease, Date.now());
        held.add(waiting.keyId);
      }
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
      pending.set(id, { keyId: 'keyId' in question ? question.keyId : undefined, settle, fail, timer });
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

  /**
   * A question about a key, answered where the key is decided: here while this worker holds its
   * lease (`here`, at `now`, or at the moment a lease came), else by the primary (`fromPrimary`
   * reads its answer), asked again when the answer says the lease came here meanwhile.
   */
  async function whereDecided<T>(
    keyId: string,
    now: number,
    op: 'consume' | 'peek',
    here: (at: number) => Promise<T>,
    fromPrimary: (answer: LimiterReply) => T | undefined,
  ): Promise<T> {
    for (let asked = 0; asked < MAX_ASKS; asked += 1) {
      if (held.has(keyId)) return here(asked === 0 ? now : Date.now());
      const answer = await ask({ op, keyId });
      const value = fromPrimary(answer);
      if (value !== undefined) return value;
      if (!('leased' in answer)) throw failure(answer);
    }
    throw failure({ id: 0, error: 'the lease moved away at every question' });
  }

  async function close(): Promise<void> {
    process.off('message', onMessage);
    process.off('disconnect', onDisconnect);
  }

  return {
    limiter: {
      // A key leased here is decided here, on this process's clock: the key's one state is here.
      // Otherwise `now` is not sent: the primary decides on its clock, in arrival order.
      consume: (keyId, now): Promise<RateDecision> =>
        whereDecided(
          keyId,
          now,
          'consume',
          (at) => leased.consume(keyId, at),
          (answer) => ('decision' in answer ? answer.decision : undefined),
        ),
      // Read where the key is decided. The primary's wait counts from its read, which came later
      // than `now` by the question's trip: counted from `now`, so that every worker names the
      // same end of an interval, however busy the channel.
      peek: (keyId, now): Promise<RateStanding> =>
        whereDecided(
          keyId,
          now,
          'peek',
          (at) => leased.peek(keyId, at),
          (answer) => {
            if (!('standing' in answer)) return undefined;
            const { standing, at } = answer;
            return standing.waitMs > 0 ? { ...standing, waitMs: Math.max(0, standing.waitMs + at - now) } : standing;
          },
        ),
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
