import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Drives the built command line (`node dist/bin.js`), as a user runs it after `npm run build`. */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'dist', 'bin.js');

function newestMtime(folder: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Builds dist/ when it is missing or older than src/. `npm test` builds first, so this only
 * runs when a test file is run on its own, and never races another file's build.
 */
export function ensureBuilt(): void {
  if (fs.existsSync(BIN) && fs.statSync(BIN).mtimeMs >= newestMtime(path.join(ROOT, 'src'))) return;
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe' });
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly input?: string;
}

/** Runs `meal-export ...args`; the environment has no MEAL_EXPORT_* settings, so flags decide. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MEAL_EXPORT_')));
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(options.input ?? '');
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** A temporary folder under the system's, removed by `remove()`. */
export function makeTempDir(): { readonly dir: string; file(name: string, text?: string): string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'meal-export-cli-'));
  return {
    dir,
    file(name, text) {
      const file = path.join(dir, name);
      if (text !== undefined) fs.writeFileSync(file, text);
      return file;
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { BIN };
