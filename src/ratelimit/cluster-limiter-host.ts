import cluster, { type Worker } from 'node:cluster';
import {
  isLimiterRequest,
  LIMITER_ANSWER,
  type LimiterAnswer,
  type LimiterQuestion,
  type LimiterReply,
} from './cluster-limiter-protocol.js';
import type { AuthFailureLimiter, RateLimiter } from './rate-limiter.js';

export interface HostedLimiters {
  readonly limiter: RateLimiter;
  readonly authFailures: AuthFailureLimiter;
}

/**
 * The primary's side of the cluster limiters (docs/api.md#limits): every worker's consume and
 * registerFailure reach this one limiter pair in arrival order, in one JavaScript thread, so of N
 * simultaneous requests with one key on any workers exactly one is accepted, and the daily quota and
 * the brute-force guard count every worker's requests. Decisions use the primary's clock, not each
 * worker's `now`: in arrival order, a worker's earlier `now` after another's later one would look like
 * time going back (an interval not yet over, even a 0 ms one). Returns the function that stops answering.
 */
export function hostLimitersForWorkers(limiters: HostedLimiters): () => void {
  const onMessage = (worker: Worker, message: unknown) => {
    if (!isLimiterRequest(message)) return;
    // Each question is decided as it is read, in the message's order (the in-process limiters
    // decide before their first await); the replies go back together, in one message.
    Promise.all(message.questions.map((question) => answer(limiters, question))).then(
      (replies) => {
        const reply: LimiterAnswer = { type: LIMITER_ANSWER, replies };
        // A worker that died while it waited has nobody left to answer.
        if (worker.isConnected()) worker.send(reply, undefined, () => {});
      },
      () => {},
    );
  };
  cluster.on('message', onMessage);
  return () => cluster.off('message', onMessage);
}

async function answer(limiters: HostedLimiters, request: LimiterQuestion): Promise<LimiterReply> {
  const { id } = request;
  try {
    switch (request.op) {
      case 'consume':
        return { id, decision: await limiters.limiter.consume(request.keyId, Date.now()) };
      case 'peek': {
        const at = Date.now();
        return { id, standing: await limiters.limiter.peek(request.keyId, at), at };
      }
      case 'registerFailure':
        return {
          id,
          waitMs: await limiters.authFailures.registerFailure(request.address, Date.now()),
        };
      case 'ping':
        await limiters.limiter.ping();
        return { id, ok: true };
    }
  } catch (error) {
    return { id, error: error instanceof Error ? error.message : String(error) };
  }
}
