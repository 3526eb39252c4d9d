import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { runCli } from '../support/cli.js';
import { BIN, cleanEnv, PROJECT_ROOT } from '../support/project.js';
import type { ServedApp } from '../support/server.js';

/** Drives `meal-export pull` against a test server, and reads what it and `meals export` wrote. */

export interface PullFiles {
  readonly state: string;
  readonly out: string;
}

export function pullFiles(dir: string, name: string, extension: 'csv' | 'jsonl' = 'csv'): PullFiles {
  return { state: path.join(dir, `${name}.state.json`), out: path.join(dir, `${name}.${extension}`) };
}

export function pullArgs(server: ServedApp, files: PullFiles, extra: readonly string[] = []): string[] {
  const ca = path.join(server.dir, 'tls', 'cert.pem');
  return ['pull', '--url', server.url, '--ca', ca, '--state', files.state, '--out', files.out, ...extra];
}

/** `meal-export pull ... --json`, which must succeed; returns its summary. */
export async function pull(server: ServedApp, key: string, files: PullFiles, extra: readonly string[] = []) {
  const run = await runCli([...pullArgs(server, files, extra), '--json'], { env: { MEAL_EXPORT_API_KEY: key } });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as {
    pages: number;
    upserted: number;
    deleted: number;
    total: number;
    verified: boolean;
  };
}

/** A pull left running (for SIGKILL, SIGTERM and --follow). */
export function spawnPull(server: ServedApp, key: string, files: PullFiles, extra: readonly string[] = []) {
  const child = spawn(process.execPath, [BIN, ...pullArgs(server, files, extra)], {
    cwd: PROJECT_ROOT,
    env: cleanEnv({ MEAL_EXPORT_API_KEY: key }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString('utf8');
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child: child as ChildProcess, exited, stdout: () => stdout, stderr: () => stderr };
}

export { waitFor } from '../support/wait-for.js';

export const fileText = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

/** What `meals export` writes for the user, in the format asked. */
export async function exported(server: ServedApp, userId: string, format: 'csv' | 'jsonl' = 'csv'): Promise<string> {
  const run = await runCli(['meals', 'export', '--user', userId, '--format', format, '--db', server.db]);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

export const csvRows = (text: string): string[][] => parse(text, { record_delimiter: '\r\n' });

/** The pulled file equals `meals export` for that user: row by row, then byte for byte. */
export async function assertSameAsExport(server: ServedApp, userId: string, out: string, format: 'csv' | 'jsonl') {
  const expected = await exported(server, userId, format);
  const actual = fileText(out);
  if (format === 'csv') assert.deepEqual(csvRows(actual), csvRows(expected));
  else
    assert.deepEqual(
      actual
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
      expected
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    );
  assert.equal(actual, expected);
}

export async function cli(...args: string[]) {
  const run = await runCli(args);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}
