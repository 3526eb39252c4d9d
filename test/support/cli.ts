import { spawn } from 'node:child_process';
import { BIN, cleanEnv, PROJECT_ROOT } from './project.js';

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `meal-export <args>` from the build, with optional stdin and environment. */
export function runCli(
  args: readonly string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: PROJECT_ROOT,
      env: cleanEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.end(options.input ?? '');
  });
}

/** Runs a command that must succeed with `--json`, and returns its parsed output. */
export async function cliJson<T = unknown>(args: readonly string[], options: { input?: string } = {}): Promise<T> {
  const result = await runCli([...args, '--json'], options);
  if (result.code !== 0) {
    throw new Error(`meal-export ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  }
  return JSON.parse(result.stdout) as T;
}

/** `webhooks create` on the store `db`: the endpoint as the command answers it (`--json`). */
export function createWebhookByCli<T = { id: string }>(
  db: string,
  userId: string,
  url: string,
  name?: string,
): Promise<T> {
  const named = name === undefined ? [] : ['--name', name];
  return cliJson<T>(['webhooks', 'create', '--user', userId, '--url', url, ...named, '--db', db]);
}
