import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import type { ServerProbes } from './load.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const BIN = path.join(ROOT, 'dist', 'bin.js');
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 35_000;
const STDERR_KEPT = 8_000;

/** A server process of the benchmark: the real one, the ceiling or the naive one. */
export interface ServerProcess {
  readonly name: string;
  /** `https://127.0.0.1:PORT`, read from its `listening on` line. */
  readonly url: string;
  readonly pid: number;
  /** What a load reads of it; unset: the CPU and memory of `pid` alone. */
  readonly probes?: ServerProbes;
  /** SIGTERM, then waits for the exit (SIGKILL after 35 s). */
  stop(): Promise<void>;
}

/**
 * How a child of the benchmark is told its store (a SQLite path or a postgres:// URL): in the
 * environment, not as `--db`, for argv is what `ps` shows every user of the machine, and a
 * PostgreSQL URL may carry a password.
 */
export function storeEnv(db: string): Record<string, string> {
  return { MEAL_EXPORT_DATABASE_URL: db };
}

/** Runs a command to its end; rejects with its stderr when it fails. `env`: set beside this process's. */
export async function runCommand(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<string> {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) {
    throw new Error(`${path.basename(command)} ${args.join(' ')} exited ${code}: ${Buffer.concat(err).toString()}`);
  }
  return Buffer.concat(out).toString('utf8');
}

/** Runs `meal-export …args` from dist/, on the store `db` when given, and returns its stdout. */
export function runMealExport(args: readonly string[], db?: string): Promise<string> {
  return runCommand(process.execPath, [BIN, ...args], db === undefined ? {} : storeEnv(db));
}

async function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await once(child, 'exit');
  clearTimeout(killer);
}

/**
 * Starts `node …args` and resolves once it prints `listening on URL` on stdout. `env`: variables
 * set beside this process's (the webhook benchmark's NODE_EXTRA_CA_CERTS).
 */
export async function startServerProcess(
  name: string,
  nodeArgs: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, nodeArgs, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-STDERR_KEPT);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start: ${why}\n${stderr}`));
    };
    const timer = setTimeout(() => fail(`no "listening on" line within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once('exit', (code, signal) => fail(`exited (${code ?? signal})`));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^listening on (\S+)$/m.exec(stdout);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve(match[1]);
    });
  });
  if (child.pid === undefined) throw new Error(`${name} has no pid`);
  const { pid } = child;
  return {
    name,
    url,
    pid,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await waitForExit(child);
    },
  };
}
