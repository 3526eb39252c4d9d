import { spawn } from 'node:child_process';
import path from 'node:path';
import { BIN, cleanEnv, PROJECT_ROOT } from '../support/project.js';

/**
 * `meal-export serve` on a data folder the caller owns (startTestServer makes and removes its
 * own): for what survives a restart, such as the self-signed certificate.
 */
export interface ServeProcess {
  readonly host: string;
  readonly port: number;
  stdout(): string;
  logs(): string;
  /** SIGTERM, and the exit code once the process has ended. */
  stop(): Promise<number | null>;
}

export async function startServeIn(dataDir: string): Promise<ServeProcess> {
  const args = [BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir];
  args.push('--db', path.join(dataDir, 'meal-export.db'));
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve not ready in 30 s:\n${stderr}`)), 30_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      const m = /listening on https:\/\/127\.0\.0\.1:(\d+)\n/.exec(stdout);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code} before it was ready:\n${stderr}`));
    });
  });
  return {
    host: '127.0.0.1',
    port,
    stdout: () => stdout,
    logs: () => stderr,
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) resolve(child.exitCode);
        else {
          child.once('exit', (code) => resolve(code));
          child.kill('SIGTERM');
        }
      });
    },
  };
}
