import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { BIN, cleanEnv, makeTempDir, PROJECT_ROOT } from './project.js';
import { lazyStoreWriter } from './store-writer.js';

// What tests reach a server with, from where they have always imported it.
export { pausedGet, refused, sigtermWithAnswerInFlight, userWithLargePage } from './answer-in-flight.js';
export { contentOf, makeMeal, newUserId } from './fresh-records.js';
export { getMeals, keyedGetOptions, rawTlsRequest, request, type TestResponse } from './https-request.js';

/** A served meal-export as a test reaches it: a process of its own, or started in the test's (in-process-server.ts). */
export interface ServedApp {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly db: string;
  readonly dir: string;
  /** `http://127.0.0.1:PORT` of the admin listener (/metrics), when started with `adminPort`. */
  readonly adminUrl: string | undefined;
  /** The host API's listener, when started with `hostApiPort` (same certificate: `request` reaches it). */
  readonly hostApi: { readonly url: string; readonly host: string; readonly port: number } | undefined;
  /** Every log line the server wrote so far. */
  logs(): string;
  /** Stops it as SIGTERM does (the drain), removes its folder. Resolves the exit code (0 in-process). */
  stop(): Promise<number | null>;
  createKey(userId: string, extra?: readonly string[]): Promise<{ id: string; key: string }>;
  importMeals(
    userId: string,
    meals: readonly object[],
  ): Promise<{ imported: number; created: number; updated: number; unchanged: number }>;
  /** A delete on this server's store (`meals delete`'s answer). */
  deleteMeal(userId: string, mealId: string): Promise<{ id: string; deleted: true }>;
  /** `meals prune`'s rule on this server's store, run beside the server. */
  pruneTombstones(tombstoneDays: number): Promise<{ pruned: number }>;
  /** A sign-in link to the app page at `publicUrl` for the user (`users login-link`'s `url`). */
  loginLink(userId: string, publicUrl: string): Promise<string>;
}

/** `meal-export serve` in a process of its own; the test changes its store from the test's process (store-writer.ts). */
export interface TestServer extends ServedApp {
  readonly child: ChildProcess;
  /** Everything the server wrote to stderr (its logs) so far. */
  logs(): string;
  stdout(): string;
}

export interface StartOptions {
  /** A data folder the caller owns (kept on stop), e.g. to restart on the same certificate. */
  readonly dataDir?: string;
  readonly minIntervalMs?: number;
  readonly dailyLimit?: number;
  /** `--admin-port`: 0 for a free port, read back from the server's log into `adminUrl`. */
  readonly adminPort?: number;
  /** `--host-api-port`: 0 for a free port, read back from the server's log into `hostApi`. */
  readonly hostApiPort?: number;
  /** `--workers N` (node:cluster). */
  readonly workers?: number;
  readonly extraArgs?: readonly string[];
  /** The store (`--db`): a postgres:// URL, say; by default a SQLite file in the data folder. */
  readonly db?: string;
  /** The shared limiter store (`--redis`) and its key prefix. */
  readonly redis?: { readonly url: string; readonly prefix: string };
}

// The admin listener's address, as the server logs it (metrics/admin-listener.ts).
const ADMIN_LINE_RE = /"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*"msg":"admin listening"/;
// The host API's address, as the server logs it (serve/host-api-listener.ts).
const HOST_API_LINE_RE = /"url":"(https?:\/\/127\.0\.0\.1:\d+)"[^\n]*"msg":"host API listening"/;

/** `serve`'s arguments for these options, on this data folder and store. */
export function serveArgs(options: StartOptions, dir: string, db: string): string[] {
  const args = ['--port', '0', '--db', db, '--data-dir', dir, '--host', '127.0.0.1'];
  if (options.redis !== undefined) args.push('--redis', options.redis.url, '--redis-prefix', options.redis.prefix);
  args.push('--min-interval-ms', String(options.minIntervalMs ?? 0));
  args.push('--daily-limit', String(options.dailyLimit ?? 1_000_000));
  if (options.adminPort !== undefined) args.push('--admin-port', String(options.adminPort));
  if (options.hostApiPort !== undefined) args.push('--host-api-port', String(options.hostApiPort));
  if (options.workers !== undefined) args.push('--workers', String(options.workers));
  args.push(...(options.extraArgs ?? []));
  return args;
}

/**
 * Starts the built `meal-export serve` on a free port with its own SQLite file and data
 * folder, and waits for its `listening on` line.
 */
export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  const temp = options.dataDir === undefined ? makeTempDir('server') : undefined;
  const dir = options.dataDir ?? temp?.dir ?? '';
  const db = options.db ?? path.join(dir, 'meal-export.db');
  const args = [BIN, 'serve', ...serveArgs(options, dir, db)];
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  type Addresses = { url: string; adminUrl: string | undefined; hostApiUrl: string | undefined };
  const { url, adminUrl, hostApiUrl } = await new Promise<Addresses>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server not ready in 30 s:\n${stderr}`)), 30_000);
    // Ready once the `listening on` line is out, and the admin and host API addresses logged when asked.
    const check = () => {
      const listening = /listening on (\S+)/.exec(stdout)?.[1];
      const admin = ADMIN_LINE_RE.exec(stderr)?.[1];
      const hostApi = HOST_API_LINE_RE.exec(stderr)?.[1];
      if (listening === undefined || (options.adminPort !== undefined && admin === undefined)) return;
      if (options.hostApiPort !== undefined && hostApi === undefined) return;
      clearTimeout(timer);
      resolve({ url: listening, adminUrl: admin, hostApiUrl: hostApi });
    };
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
      check();
    });
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      check();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code} before it was ready:\n${stderr}`));
    });
  });
  const { hostname, port } = new URL(url);
  const writer = lazyStoreWriter(db);
  return {
    url,
    host: hostname,
    port: Number(port),
    db,
    dir,
    child,
    adminUrl,
    hostApi:
      hostApiUrl === undefined
        ? undefined
        : { url: hostApiUrl, host: new URL(hostApiUrl).hostname, port: Number(new URL(hostApiUrl).port) },
    logs: () => stderr,
    stdout: () => stdout,
    async stop() {
      const exited = new Promise<number | null>((resolve) => {
        if (child.exitCode !== null) resolve(child.exitCode);
        else child.once('exit', (code) => resolve(code));
      });
      child.kill('SIGTERM');
      const code = await exited;
      await writer.close();
      temp?.remove();
      return code;
    },
    ...writer,
  };
}
