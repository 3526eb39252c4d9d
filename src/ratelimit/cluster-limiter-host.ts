import cluster, { type Worker } from 'node:cluster';
import { nextUtcMidnight } from '../domain/instant.js';
import {
  isLeaseReturn,
  isLimiterRequest,
  LEASE_RECALL,
  LIMITER_ANSWER,
  type LeaseRecall,
  type LimiterAnswer,
  type LimiterQuestion,
  type LimiterReply,
} from './cluster-limiter-protocol.js';
import type { KeyHandover } from './key-handover.js';
import type { MovableRateLimiter } from './memory.js';
import type { AuthFailureLimiter } from './rate-limiter.js';

export interface HostedLimiters {
  readonly limiter: MovableRateLimiter;
  readonly authFailures: AuthFailureLimiter;
}

/**
 * Each key's requests accepted today as the store last heard of them (the workers flush them,
 * ratelimit/used-quota.ts): what a key leased to a worker that died resumes from.
 */
export type UsedTodayReader = (keyIds: readonly string[]) => Promise<ReadonlyMap<string, number>>;

/** A key that moves twice within this long (ms) stays decided here that long, instead of moving on every request. */
const CONTESTED_MS = 2_000;
/** How long a lease is held at most (ms): then it is recalled, and granted again at the key's next request. */
const LEASE_MS = 60_000;
/** Past this many keys' moves remembered, those whose time is over are forgotten. */
const MAX_CONTESTED = 10_000;

interface Queued {
  readonly worker: Worker;
  readonly question: LimiterQuestion & { readonly keyId: string };
}

/**
 * The primary's side of the cluster limiters (docs/operations.md#workers---workers-n). Every key is
 * decided in one place at a time, so of N simultaneous requests with one key on any workers exactly
 * one is accepted, and the daily quota counts every worker's requests:
 * - here, in arrival order on the primary's clock, for a key no worker holds;
 * - or in the one worker that holds the key's lease. A key's first request on a worker takes it: the
 *   answer carries the key's state, and the worker decides the key's next requests itself, with no
 *   question asked (a keep-alive client stays on one worker). When another worker asks about the
 *   key, the primary recalls the lease, queues the question until the state is back, decides it,
 *   and leases the key on to that worker (a client that connected again); a key that moves again
 *   within CONTESTED_MS is decided here that long, so a key whose requests come through several
 *   workers at once does not move on each of them.
 * A worker that dies with leases gives each key's state back as the store knew it: the day's
 * count as last flushed (a crash forgets at most the last seconds of requests, as a restart's,
 * docs/operations.md#limits-across-restarts) and a whole interval from the death.
 * The brute-force guard is decided here for every worker. Returns the function that stops answering.
 */
export function hostLimitersForWorkers(limiters: HostedLimiters, usedToday: UsedTodayReader): () => void {
  const { limiter } = limiters;
  /** The worker that holds each leased key, the key's state and when (performance.now()) it was granted. */
  const holders = new Map<
    string,
    { readonly worker: Worker; readonly granted: KeyHandover; readonly grantedAt: number }
  >();
  /** Keys whose state is on its way back (recalled, or read from the store): their questions wait. */
  const waiting = new Map<string, Queued[]>();
  /** Each key's last move to another worker's questions, and until when (performance.now()) it is decided here. */
  const moves = new Map<string, { readonly at: number; readonly contestedUntil: number }>();

  /**
   * A key recalled for another worker's question: it goes on to that worker (a client that
   * connected again), unless it moved already within CONTESTED_MS: then its requests come
   * through several workers at once, and it stays here that long.
   */
  function moved(keyId: string): void {
    const now = performance.now();
    if (moves.size >= MAX_CONTESTED) {
      for (const [key, move] of moves)
        if (Math.max(move.at + CONTESTED_MS, move.contestedUntil) <= now) moves.delete(key);
    }
    const last = moves.get(keyId);
    const again = last !== undefined && now - last.at < CONTESTED_MS;
    moves.set(keyId, { at: now, contestedUntil: again ? now + CONTESTED_MS : 0 });
  }

  const contested = (keyId: string): boolean => (moves.get(keyId)?.contestedUntil ?? 0) > performance.now();

  /** Decides a question here; a consume of a key nobody contests hands the key's lease to the asker. */
  async function decideHere(worker: Worker, question: LimiterQuestion): Promise<LimiterReply> {
    const reply = await answer(limiters, question);
    if (question.op !== 'consume' || !('decision' in reply) || contested(question.keyId) || !worker.isConnected()) {
      return reply;
    }
    const lease = limiter.handOver(question.keyId, Date.now());
    holders.set(question.keyId, { worker, granted: lease, grantedAt: performance.now() });
    return { ...reply, lease };
  }

  function send(worker: Worker, replies: readonly LimiterReply[]): void {
    const message: LimiterAnswer = { type: LIMITER_ANSWER, replies };
    // A worker that died while it waited has nobody left to answer.
    if (replies.length > 0 && worker.isConnected()) worker.send(message, undefined, () => {});
  }

  /**
   * The key's state is here again. Recalled for another worker's questions, those are decided,
   * the first consume leasing the key on to its worker unless the key is contested (moved()); taken
   * back for its age (or from a dead worker) with none waiting, it is leased again at its next request.
   */
  async function resumed(keyId: string, handover: KeyHandover): Promise<void> {
    limiter.takeOver(keyId, handover, Date.now());
    const queued = waiting.get(keyId) ?? [];
    waiting.delete(keyId);
    if (queued.length > 0) moved(keyId);
    // Each routed as if it came now: the first may lease the key on, and the next then follow it.
    const out = newOutbox();
    for (const { worker, question } of queued) await route(worker, question, out);
    flush(out);
  }

  /** The replies to send each worker, and the keys to recall from each, after a message. */
  interface Outbox {
    readonly replies: Map<Worker, LimiterReply[]>;
    readonly recalls: Map<Worker, string[]>;
  }
  const newOutbox = (): Outbox => ({ replies: new Map(), recalls: new Map() });
  const add = <T>(map: Map<Worker, T[]>, worker: Worker, item: T) =>
    map.set(worker, [...(map.get(worker) ?? []), item]);

  /**
   * Where a question goes: queued behind its key's recall, answered `leased` to the key's holder,
   * queued while the key is recalled from another worker, or decided here. One after another,
   * each decided as it is read: the in-process limiters decide before their first await, and no
   * other message comes between two of them (inTurn).
   */
  async function route(worker: Worker, question: LimiterQuestion, out: Outbox): Promise<void> {
    if (question.op === 'consume' || question.op === 'peek') {
      const { keyId } = question;
      const queue = waiting.get(keyId);
      if (queue !== undefined) {
        queue.push({ worker, question });
        return;
      }
      const holder = holders.get(keyId);
      if (holder?.worker === worker) {
        add(out.replies, worker, { id: question.id, leased: true });
        return;
      }
      if (holder !== undefined) {
        waiting.set(keyId, [{ worker, question }]);
        add(out.recalls, holder.worker, keyId);
        return;
      }
    }
    add(out.replies, worker, await decideHere(worker, question));
  }

  function flush(out: Outbox): void {
    for (const [worker, replies] of out.replies) send(worker, replies);
    for (const [holder, keyIds] of out.recalls) {
      const message: LeaseRecall = { type: LEASE_RECALL, keyIds };
      if (holder.isConnected()) holder.send(message, undefined, () => {});
    }
  }

  async function onRequest(worker: Worker, questions: readonly LimiterQuestion[]): Promise<void> {
    const out = newOutbox();
    for (const question of questions) await route(worker, question, out);
    flush(out);
  }

  /**
   * Leases older than LEASE_MS come back, so that neither side keeps one for every key it ever
   * saw: a key still in use is leased again at its next request, one question a minute.
   */
  async function recallOld(): Promise<void> {
    const before = performance.now() - LEASE_MS;
    const out = newOutbox();
    for (const [keyId, { worker, grantedAt }] of holders) {
      if (grantedAt > before || waiting.has(keyId)) continue;
      waiting.set(keyId, []);
      add(out.recalls, worker, keyId);
    }
    flush(out);
  }

  async function onReturn(worker: Worker, returned: readonly { keyId: string; handover: KeyHandover }[]) {
    for (const { keyId, handover } of returned) {
      if (holders.get(keyId)?.worker !== worker) continue;
      holders.delete(keyId);
      await resumed(keyId, handover);
    }
  }

  /** A worker gone with leases: each key resumes from the store's count and a whole interval from now. */
  function lostWith(worker: Worker): [string, KeyHandover][] {
    const lost = [...holders].filter(([, holder]) => holder.worker === worker);
    for (const [keyId] of lost) {
      holders.delete(keyId);
      if (!waiting.has(keyId)) waiting.set(keyId, []);
    }
    return lost.map(([keyId, { granted }]) => [keyId, granted]);
  }

  async function resumeLost(lost: readonly [string, KeyHandover][]): Promise<void> {
    const now = Date.now();
    let flushed: ReadonlyMap<string, number> = new Map();
    try {
      flushed = await usedToday(lost.map(([keyId]) => keyId));
    } catch {
      // The store did not answer: the counts at the grant are what is known.
    }
    inTurn(async () => {
      for (const [keyId, granted] of lost) {
        const atGrant = granted.dayResetAt > now ? granted.usedToday : 0;
        const handover = {
          sinceAcceptedMs: 0,
          usedToday: Math.max(atGrant, flushed.get(keyId) ?? 0),
          dayResetAt: nextUtcMidnight(now),
        };
        await resumed(keyId, handover);
      }
    });
  }

  // One message after another, each to its end: a question decided here and the lease it gives
  // are one step, which no other message may come between (two messages read in one go are
  // handled one after the other, not interleaved at their awaits).
  let turn: Promise<void> = Promise.resolve();
  function inTurn(work: () => Promise<void>): void {
    turn = turn.then(work).catch(() => {});
  }

  const onMessage = (worker: Worker, message: unknown) => {
    if (isLimiterRequest(message)) inTurn(() => onRequest(worker, message.questions));
    else if (isLeaseReturn(message)) inTurn(() => onReturn(worker, message.returned));
  };
  // The store is read outside the turn: other keys' questions do not wait for it.
  const onWorkerExit = (worker: Worker) =>
    inTurn(async () => {
      const lost = lostWith(worker);
      if (lost.length > 0) void resumeLost(lost);
    });
  cluster.on('message', onMessage);
  cluster.on('exit', onWorkerExit);
  const aging = setInterval(() => inTurn(recallOld), LEASE_MS);
  aging.unref();
  return () => {
    clearInterval(aging);
    cluster.off('message', onMessage);
    cluster.off('exit', onWorkerExit);
  };
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
