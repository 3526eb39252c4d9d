import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { BIN, cleanEnv, PROJECT_ROOT } from '../test/support/project.js';

/** How one process of an instance ended. */
export interface InstanceExit {
  readonly instance: number;
  readonly pid: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Ended by the soak's SIGKILL (expected), by its SIGTERM at the end (must be code 0), or by itself. */
  readonly cause: 'killed' | 'stopped' | 'crashed';
}

/** What the instance's log said at level warn and above (pino levels: 40 warn, 50 error, 60 fatal). */
export interface LogTally {
  warn: number;
  error: number;
  /** The first lines at error or fatal, as they were logged (keys are redacted by the logger). */
  readonly errorLines: string[];
  readonly warnLines: string[];
}

/** One `meal-export serve` of the soak: the same ports and store across its kills and restarts. */
export interface Instance {
  readonly index: number;
  /** `https://127.0.0.1:PORT`: the public API. */
  readonly url: string;
  readonly hostApi: { readonly host: string; readonly port: number };
  pid(): number | undefined;
  start(): Promise<void>;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
  /** SIGTERM, and waits for the exit (SIGKILL after 40 s, which then shows as not 0). */
  stop(): Promise<void>;
  readonly exits: InstanceExit[];
  readonly log: LogTally;
}

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 40_000;
const KEPT_LINES = 5;

export interface InstanceSpec {
  readonly index: number;
  readonly port: number;
  readonly hostApiPort: number;
  readonly dataDir: string;
  /** Flags after `serve --port … --host-api-port … --data-dir …`. */
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export function createInstance(spec: InstanceSpec): Instance {
  const exits: InstanceExit[] = [];
  const log: LogTally = { warn: 0, error: 0, errorLines: [], warnLines: [] };
  let child: ChildProcess | undefined;
  let ending: 'killed' | 'stopped' | undefined;

  const tally = (line: string) => {
    const level = Number(/"level":(\d+)/.exec(line)?.[1] ?? 0);
    if (level >= 50) {
      log.error += 1;
      if (log.errorLines.length < KEPT_LINES) log.errorLines.push(line);
    } else if (level >= 40) {
      log.warn += 1;
      if (log.warnLines.length < KEPT_LINES) log.warnLines.push(line);
    }
  };

  async function start(): Promise<void> {
    const args = [BIN, 'serve', '--host', '127.0.0.1', '--port', String(spec.port)];
    args.push('--host-api-port', String(spec.hostApiPort), '--data-dir', spec.dataDir, ...spec.args);
    const process_ = spawn(process.execPath, args, {
      cwd: PROJECT_ROOT,
      env: cleanEnv({ ...spec.env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = process_;
    ending = undefined;
    let pending = '';
    process_.stderr.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) tally(line);
    });
    process_.once('exit', (code, signal) => {
      exits.push({ instance: spec.index, pid: process_.pid ?? 0, code, signal, cause: ending ?? 'crashed' });
    });
    await new Promise<void>((resolve, reject) => {
      let stdout = '';
      const fail = (why: string) => {
        clearTimeout(timer);
        process_.kill('SIGKILL');
        reject(new Error(`instance ${spec.index} did not start: ${why}\n${log.errorLines.join('\n')}`));
      };
      const timer = setTimeout(() => fail(`no "listening on" line within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
      const early = (code: number | null, signal: NodeJS.Signals | null) => fail(`exited (${code ?? signal})`);
      process_.once('exit', early);
      process_.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        if (!/^listening on \S+$/m.test(stdout)) return;
        clearTimeout(timer);
        process_.off('exit', early);
        resolve();
      });
    });
  }

  async function end(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    const running = child;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    ending = signal === 'SIGKILL' ? 'killed' : 'stopped';
    const exited = once(running, 'exit');
    running.kill(signal);
    const killer = setTimeout(() => running.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(killer);
  }

  return {
    index: spec.index,
    url: `https://127.0.0.1:${spec.port}`,
    hostApi: { host: '127.0.0.1', port: spec.hostApiPort },
    pid: () => (child?.exitCode === null && child.signalCode === null ? child.pid : undefined),
    start,
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
    exits,
    log,
  };
}
