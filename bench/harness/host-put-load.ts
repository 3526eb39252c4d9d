import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { ROOT } from './processes.js';

/**
 * The host API benchmark's load client: a process of its own (bench/harness/host-put-client.ts)
 * that PUTs single meals over keep-alive HTTPS connections on command, so that its CPU is not
 * the benchmark's and the server's measured window holds nothing else of this process.
 */

/**
 * One new meal a request, `${prefix}-${n}` (n counts the command's requests), for one of as many
 * users as connections, `${prefix}-user-${k}`: the app's servers save different users' meals at once.
 */
interface PutTarget {
  readonly prefix: string;
  readonly seconds: number;
}

export type PutCommand =
  /** Closed loop: each connection sends its next PUT when the last one's answer is in. */
  | ({ readonly op: 'closed' } & PutTarget)
  /**
   * Open loop: PUT number i is due at start + i / rate whatever the answers do (queued for a free
   * connection when all are busy), and its latency counts from then.
   */
  | ({ readonly op: 'open'; readonly rate: number } & PutTarget)
  | { readonly op: 'stop' };

export interface PutRun {
  /** PUTs answered 200 `created` in the window. */
  readonly requests: number;
  readonly ms: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** The client process's CPU over the window, in % of one core. */
  readonly clientCpuPct: number;
}

export type PutClientMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'reply'; readonly id: number; readonly body: PutRun | Record<string, never> }
  | { readonly type: 'failed'; readonly id: number; readonly message: string };

export interface PutClient {
  run(command: Exclude<PutCommand, { op: 'stop' }>): Promise<PutRun>;
  stop(): Promise<void>;
}

/** The meal every PUT sends, dated now: the meal the writer's baseline writes (long-poll-writer.ts). */
export const putMealJson = (): string =>
  JSON.stringify({ type: 'lunch', date: new Date().toISOString(), title: 'long poll', caloriesTotal: 500 });

const SCRIPT = path.join(import.meta.dirname, 'host-put-client.ts');
export const SERVICE_TOKEN_ENV = 'MEAL_EXPORT_BENCH_SERVICE_TOKEN';

export interface PutClientStart {
  readonly hostUrl: string;
  /** The server's certificate (a PEM file), trusted by the client. */
  readonly caFile: string;
  /** Passed in the environment: never argv, which `ps` shows. */
  readonly token: string;
  /** Keep-alive connections the client holds at most. */
  readonly connections: number;
}

export async function startPutClient(start: PutClientStart): Promise<PutClient> {
  const child: ChildProcess = fork(
    SCRIPT,
    ['--url', start.hostUrl, '--ca', start.caFile, '--connections', String(start.connections)],
    {
      cwd: ROOT,
      env: { ...process.env, [SERVICE_TOKEN_ENV]: start.token },
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8000);
  });
  const pending = new Map<number, { resolve: (body: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  await new Promise<void>((resolve, reject) => {
    child.on('message', (message: PutClientMessage) => {
      if (message.type === 'ready') return resolve();
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.type === 'reply') waiting?.resolve(message.body);
      else waiting?.reject(new Error(`host PUT client: ${message.message}`));
    });
    child.once('exit', (code, signal) => {
      const error = new Error(`host PUT client exited (${code ?? signal}):\n${stderr}`);
      reject(error);
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    });
  });
  const ask = (command: PutCommand) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ id, command });
    });
  return {
    run: async (command) => (await ask(command)) as PutRun,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      await ask({ op: 'stop' }).catch(() => undefined);
      await exited;
    },
  };
}
