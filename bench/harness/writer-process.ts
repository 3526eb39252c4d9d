import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { ROOT, storeEnv } from './processes.js';

/**
 * The long-poll and webhook benchmarks' writer: a process of its own that stays up and writes meals on
 * command through `meal-export/host` (bench/harness/long-poll-writer.ts), so that process
 * start-up is never part of a latency. With `serve`, the same process also runs the API on the
 * same store handle (startServer's `storage` option): the in-process case.
 *
 * Times are `wallClock()` in both processes: performance.timeOrigin (the system clock read
 * once, with sub-millisecond precision, when each process started) plus performance.now()
 * (monotonic since then). On one machine the two processes' values are comparable to within
 * the error of those two reads and the drift of the monotonic clock from the system clock
 * over the run (µs to tenths of ms); Date.now() would add 1 ms of rounding on each side. The
 * offset that remains is measured (`clockOffset`) and reported with the figures.
 */
export const wallClock = (): number => performance.timeOrigin + performance.now();

/** What the benchmark asks of the writer. */
export type WriterCommand =
  | { readonly op: 'clock' }
  /** Makes `count` users `${prefix}${i}` (i from 0), one key each, and with `withMeal` one meal each. */
  | { readonly op: 'keys'; readonly prefix: string; readonly count: number; readonly withMeal?: boolean }
  /** One new meal of this user, through the host module; answers with the time the write returned. */
  | { readonly op: 'write'; readonly userId: string }
  /** Registers one webhook endpoint at `url` for each of `count` users `${prefix}${i}` (the webhook benchmark). */
  | { readonly op: 'webhooks'; readonly prefix: string; readonly count: number; readonly url: string }
  /** One new meal of each of these users, one transaction (one upsert) each, one after another. */
  | { readonly op: 'burst'; readonly userIds: readonly string[] }
  /**
   * `meals` new meals of this user in upserts of `batch` meals each (1: one upsert per meal);
   * with `idPrefix` the meals carry ids `${idPrefix}${i}`, as the host API's PUTs do, else the store makes them.
   */
  | {
      readonly op: 'import';
      readonly userId: string;
      readonly meals: number;
      readonly batch: number;
      readonly idPrefix?: string;
    }
  /** `meals` new meals of this user, ids `${idPrefix}${i}`, each by `saveMeal` (the host API's PUT in process), one after another. */
  | { readonly op: 'saves'; readonly userId: string; readonly meals: number; readonly idPrefix: string }
  /**
   * PostgreSQL only: `count` one-row inserts into a table of the writer's own, each its own
   * transaction, one after another: a round trip and a WAL flush each, the least a durable save
   * costs on this server and disk.
   */
  | { readonly op: 'commits'; readonly count: number }
  | { readonly op: 'stop' };

export interface UserKey {
  readonly userId: string;
  readonly key: string;
}

/** The writer's answers, by command. */
export interface WriterReplies {
  readonly clock: { readonly at: number };
  readonly keys: { readonly keys: readonly UserKey[] };
  /** `committedAt`: wallClock() right after the host's upsertMeals resolved; `writeMs`: its duration. */
  readonly write: { readonly committedAt: number; readonly writeMs: number };
  readonly webhooks: { readonly userIds: readonly string[] };
  /** wallClock() before the first upsert and after the last returned. */
  readonly burst: { readonly startedAt: number; readonly committedAt: number };
  /**
   * The upserts' time alone (the meals are made before the clock starts), and the writer's CPU
   * over it (on SQLite the whole write: the engine runs in the writer's process).
   */
  readonly import: { readonly ms: number; readonly cpuUs: number };
  /** The saves' time alone, and the writer's CPU over it, as for `import`. */
  readonly saves: { readonly ms: number; readonly cpuUs: number };
  readonly commits: { readonly ms: number };
  readonly stop: Record<string, never>;
}

/** What the child sends: `ready` once, then one reply per command, by `id`. */
export type WriterMessage =
  | { readonly type: 'ready'; readonly url: string | undefined; readonly pid: number }
  | { readonly type: 'reply'; readonly id: number; readonly body: unknown }
  | { readonly type: 'failed'; readonly id: number; readonly message: string };

export interface WriterProcess {
  readonly pid: number;
  /** The API's `https://…` when started with `serve`. */
  readonly url: string | undefined;
  ask<Op extends WriterCommand['op']>(
    command: Extract<WriterCommand, { op: Op }>,
  ): Promise<WriterReplies[Op & keyof WriterReplies]>;
  /**
   * This process's clock minus the writer's (ms), from the IPC round trip of least delay
   * among `rounds`, and that round trip (the estimate is within half of it).
   */
  clockOffset(rounds?: number): Promise<{ readonly offsetMs: number; readonly roundTripMs: number }>;
  stop(): Promise<void>;
}

const SCRIPT = path.join(import.meta.dirname, 'long-poll-writer.ts');
const START_TIMEOUT_MS = 60_000;

export interface WriterStart {
  /** The store: a SQLite file or a postgres:// URL. */
  readonly db: string;
  /** Also serve the API on the same store handle, with this data folder (its certificate). */
  readonly serveDataDir?: string;
}

/** Starts the writer and waits for its `ready` (and, with serve, its API listening). */
export async function startWriter(start: WriterStart): Promise<WriterProcess> {
  const args = start.serveDataDir === undefined ? [] : ['--serve', start.serveDataDir];
  const child: ChildProcess = fork(SCRIPT, args, {
    cwd: ROOT,
    env: { ...process.env, ...storeEnv(start.db) },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8000);
  });
  const pending = new Map<number, { resolve: (body: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  const ready = new Promise<{ url: string | undefined; pid: number }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`writer not ready in ${START_TIMEOUT_MS} ms:\n${stderr}`)),
      START_TIMEOUT_MS,
    );
    child.on('message', (message: WriterMessage) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve({ url: message.url, pid: message.pid });
        return;
      }
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.type === 'reply') waiting?.resolve(message.body);
      else waiting?.reject(new Error(`writer: ${message.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const error = new Error(`writer exited (${code ?? signal}):\n${stderr}`);
      reject(error);
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    });
  });
  const { url, pid } = await ready;

  const ask = (command: WriterCommand) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ id, command });
    });

  return {
    pid,
    url,
    ask: ask as WriterProcess['ask'],
    async clockOffset(rounds = 30) {
      let best = { offsetMs: 0, roundTripMs: Infinity };
      for (let i = 0; i < rounds; i += 1) {
        const sent = wallClock();
        const { at } = (await ask({ op: 'clock' })) as WriterReplies['clock'];
        const back = wallClock();
        if (back - sent < best.roundTripMs) best = { offsetMs: (sent + back) / 2 - at, roundTripMs: back - sent };
      }
      return best;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      await ask({ op: 'stop' }).catch(() => undefined);
      const killer = setTimeout(() => child.kill('SIGKILL'), 35_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
