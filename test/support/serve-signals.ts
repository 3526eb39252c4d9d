import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { BIN, cleanEnv, makeTempDir, PROJECT_ROOT } from './project.js';

/**
 * A `serve` signalled at a chosen moment of its start (a signal that arrives before
 * the stop handlers exist kills the process by Node's default action, with nothing drained).
 */

/** The moment: right after the process first writes `text`, on stdout or stderr. */
export interface SignalMoment {
  readonly text: string;
  /**
   * Whether the process stops itself right after that write (hold-after-write.js), so that
   * the signal arrives before it runs one more line; otherwise the signal is sent the instant
   * the text is read, racing the process as an orchestrator would.
   */
  readonly held: boolean;
}

export interface SignalledServe {
  readonly code: number | null;
  /** The signal that ended the process, null when it exited by itself. */
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  /** Its log. */
  readonly stderr: string;
}

const HOLD_AFTER_WRITE = pathToFileURL(path.join(PROJECT_ROOT, 'test', 'support', 'hold-after-write.js')).href;
const EXIT_DEADLINE_MS = 30_000;

/**
 * Starts `serve` on a free port with a store of its own, sends `signal` at `moment`, and
 * resolves how the process ended. A process still running 30 s later is killed (SIGKILL).
 * A held process is signalled once /proc says it has stopped (Linux: PROC_SKIP).
 */
export async function signalServeAt(
  moment: SignalMoment,
  options: { readonly signal?: NodeJS.Signals; readonly workers?: number } = {},
): Promise<SignalledServe> {
  const signal = options.signal ?? 'SIGTERM';
  const temp = makeTempDir('signalled');
  const args = ['serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', temp.dir];
  args.push('--db', path.join(temp.dir, 'meal-export.db'));
  if (options.workers !== undefined) args.push('--workers', String(options.workers));
  const child = spawn(process.execPath, [...(moment.held ? ['--import', HOLD_AFTER_WRITE] : []), BIN, ...args], {
    cwd: PROJECT_ROOT,
    env: cleanEnv(moment.held ? { HOLD_AFTER_WRITE: moment.text } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('serve did not start');
  let stdout = '';
  let stderr = '';
  let signalled = false;
  const signalOnce = () => {
    if (signalled || !(stdout + stderr).includes(moment.text)) return;
    signalled = true;
    void (async () => {
      if (moment.held) await untilStopped(pid);
      child.kill(signal);
      if (moment.held) child.kill('SIGCONT');
    })();
  };
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString('utf8');
    signalOnce();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
    signalOnce();
  });
  const deadline = setTimeout(() => child.kill('SIGKILL'), EXIT_DEADLINE_MS);
  try {
    const [code, ended] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
    );
    return { code, signal: ended, stdout, stderr };
  } finally {
    clearTimeout(deadline);
    temp.remove();
  }
}

/** Waits until the process is stopped (state T in /proc/PID/stat), or gone. */
async function untilStopped(pid: number): Promise<void> {
  for (;;) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return;
    }
    // "PID (COMMAND) STATE …": the command may hold spaces and parentheses, so after the last ')'.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'T' || state === 'Z' || state === 'X') return;
    await sleep(2);
  }
}
