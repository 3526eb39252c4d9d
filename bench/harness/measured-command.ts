import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DATA_DIR } from './datasets.js';
import { BIN, ROOT, storeEnv } from './processes.js';

const PRELOAD = path.join(ROOT, 'bench', 'harness', 'max-rss-on-exit.mjs');

/** A command's run: its output, its time from spawn to exit, and its peak memory measured inside it. */
export interface MeasuredRun {
  readonly stdout: string;
  readonly ms: number;
  /** VmHWM: mapped pages of a SQLite database file included. */
  readonly peakKb: number;
  /** The largest RssAnon sampled: the process's own memory. */
  readonly peakAnonKb: number;
}

/**
 * `meal-export …args` on the store `db`, as its own process, with max-rss-on-exit.mjs preloaded
 * (so the command itself is not changed for the benchmark); rejects with its stderr when it fails.
 */
export async function runMeasured(args: readonly string[], db: string): Promise<MeasuredRun> {
  const folder = path.join(DATA_DIR, 'scratch');
  mkdirSync(folder, { recursive: true });
  const rssFile = path.join(folder, `max-rss-${process.pid}-${Date.now()}.json`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', PRELOAD, BIN, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...storeEnv(db), MEAL_EXPORT_BENCH_MAX_RSS_FILE: rssFile },
  });
  let stderr = '';
  const out: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  const ms = performance.now() - started;
  try {
    if (code !== 0) throw new Error(`meal-export ${args.join(' ')} exited ${code}: ${stderr}`);
    const { maxRssKb, peakAnonKb } = JSON.parse(readFileSync(rssFile, 'utf8')) as {
      maxRssKb: number;
      peakAnonKb: number;
    };
    return { stdout: Buffer.concat(out).toString('utf8'), ms, peakKb: maxRssKb, peakAnonKb };
  } finally {
    rmSync(rssFile, { force: true });
  }
}
