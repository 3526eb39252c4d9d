import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import { connect as netConnect } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tlsConnect } from 'node:tls';
import zlib from 'node:zlib';
import { cliJson } from './cli.js';
import { BIN, cleanEnv, makeTempDir, PROJECT_ROOT } from './project.js';

export interface TestServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly db: string;
  readonly dir: string;
  readonly child: ChildProcess;
  /** `http://127.0.0.1:PORT` of the admin listener (/metrics), when started with `adminPort`. */
  readonly adminUrl: string | undefined;
  /** The host API's listener, when started with `hostApiPort` (same certificate: `request` reaches it). */
  readonly hostApi: { readonly url: string; readonly host: string; readonly port: number } | undefined;
  /** Everything the server wrote to stderr (its logs) so far. */
  logs(): string;
  stdout(): string;
  /** SIGTERM, wait for the exit, remove the folder. Resolves the exit code. */
  stop(): Promise<number | null>;
  createKey(userId: string, extra?: readonly string[]): Promise<{ id: string; key: string }>;
  importMeals(
    userId: string,
    meals: readonly object[],
  ): Promise<{ imported: number; created: number; updated: number; unchanged: number }>;
  /** `meals delete` on this server's store. */
  deleteMeal(userId: string, mealId: string): Promise<{ id: string; deleted: true }>;
  /** `meals prune` on this server's store, as an operator would run it beside the server. */
  pruneTombstones(tombstoneDays: number): Promise<{ pruned: number }>;
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

/**
 * Starts the built `meal-export serve` on a free port with its own SQLite file and data
 * folder, and waits for its `listening on` line.
 */
export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  const temp = options.dataDir === undefined ? makeTempDir('server') : undefined;
  const dir = options.dataDir ?? temp?.dir ?? '';
  const db = options.db ?? path.join(dir, 'meal-export.db');
  const args = [BIN, 'serve', '--port', '0', '--db', db, '--data-dir', dir, '--host', '127.0.0.1'];
  if (options.redis !== undefined) args.push('--redis', options.redis.url, '--redis-prefix', options.redis.prefix);
  args.push('--min-interval-ms', String(options.minIntervalMs ?? 0));
  args.push('--daily-limit', String(options.dailyLimit ?? 1_000_000));
  if (options.adminPort !== undefined) args.push('--admin-port', String(options.adminPort));
  if (options.hostApiPort !== undefined) args.push('--host-api-port', String(options.hostApiPort));
  if (options.workers !== undefined) args.push('--workers', String(options.workers));
  args.push(...(options.extraArgs ?? []));
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
      temp?.remove();
      return code;
    },
    createKey: (userId, extra = []) => cliJson(['keys', 'create', '--user', userId, '--db', db, ...extra]),
    async importMeals(userId, meals) {
      const file = path.join(dir, `import-${Date.now()}-${Math.random().toString(36).slice(2)}.jsonl`);
      writeFileSync(file, meals.map((m) => JSON.stringify(m)).join('\n'));
      return cliJson(['meals', 'import', '--user', userId, file, '--db', db]);
    },
    deleteMeal: (userId, mealId) => cliJson(['meals', 'delete', '--user', userId, mealId, '--db', db]),
    pruneTombstones: (days) => cliJson(['meals', 'prune', '--tombstone-days', String(days), '--db', db]),
  };
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The body, decompressed, as text. */
  readonly text: string;
  /** The parsed JSON body (undefined when empty or not JSON). */
  readonly json: unknown;
  /** The bytes as they came over the wire. */
  readonly raw: Buffer;
}

/** One HTTPS request on a fresh connection, accepting the server's self-signed certificate. */
export function request(
  server: { host: string; port: number },
  options: { method?: string; path: string; key?: string; headers?: Record<string, string>; body?: string | undefined },
): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
    const req = https.request(
      {
        host: server.host,
        port: server.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers,
        rejectUnauthorized: false,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          // A HEAD says how the GET's body would be encoded, and has none.
          const body =
            raw.length === 0
              ? raw
              : encoding === 'gzip'
                ? zlib.gunzipSync(raw)
                : encoding === 'br'
                  ? zlib.brotliDecompressSync(raw)
                  : raw;
          const text = body.toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, raw });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A GET with the key on a connection of its own, trusting the server's self-signed certificate. */
export function keyedGetOptions(
  server: { host: string; port: number },
  key: string,
  path: string,
): https.RequestOptions {
  return {
    host: server.host,
    port: server.port,
    path,
    headers: { authorization: `Bearer ${key}` },
    rejectUnauthorized: false,
    agent: false,
  };
}

/**
 * A new user with a key and 5000 meals whose descriptions repeat a sentence `repeats` times:
 * 100 makes a page of all of them about 16 MB, far more than the kernel's socket buffers hold
 * for a reader that has stopped, so most of the answer stays in the server process.
 */
export async function userWithLargePage(server: TestServer, repeats = 100): Promise<{ userId: string; key: string }> {
  const userId = newUserId('large');
  const { key } = await server.createKey(userId);
  const description = 'a long description of the meal, '.repeat(repeats);
  await server.importMeals(
    userId,
    Array.from({ length: 5000 }, () => makeMeal(undefined, { description })),
  );
  return { userId, key };
}

/** Opens a GET and stops reading the answer as soon as its headers arrive. */
export function pausedGet(server: TestServer, key: string, path: string) {
  return new Promise<{ status: number; readAll: () => Promise<string> }>((resolve, reject) => {
    const req = https.request(keyedGetOptions(server, key, path), (res) => {
      res.pause();
      resolve({
        status: res.statusCode ?? 0,
        readAll: () =>
          new Promise((done, fail) => {
            const chunks: Buffer[] = [];
            res.on('data', (d: Buffer) => chunks.push(d));
            res.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
            res.on('error', fail);
            res.resume();
          }),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * SIGTERM while a client holds a 5000-meal answer of about 16 MB unread (userWithLargePage):
 * checks that no new connection is accepted once it has arrived, then reads the answer to its
 * end. Resolves the answer's text and the server's exit code, for the caller's checks.
 */
export async function sigtermWithAnswerInFlight(
  server: TestServer,
): Promise<{ text: string; exitCode: number | null }> {
  const { key } = await userWithLargePage(server);
  const inFlight = await pausedGet(server, key, '/v1/meals?lastModifiedSince=2025-01-01T00:00:00Z&limit=5000');
  assert.equal(inFlight.status, 200);
  const exited = server.stop();
  await sleep(500);
  assert.equal(await refused(server.port), true, 'no new connection is accepted once SIGTERM arrived');
  const text = await inFlight.readAll();
  return { text, exitCode: await exited };
}

/** Resolves true when a TCP connection to the port is refused. */
export function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(true));
  });
}

/** GET /v1/meals with the query given as an object or a raw string. */
export function getMeals(server: TestServer, key: string | undefined, query: Record<string, string> | string) {
  const qs = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  return request(server, { path: `/v1/meals${qs === '' ? '' : `?${qs}`}`, ...(key === undefined ? {} : { key }) });
}

/** Sends raw bytes over TLS and returns what came back until the server closed (or 5 s). */
export function rawTlsRequest(server: { host: string; port: number }, payload: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = tlsConnect({ host: server.host, port: server.port, rejectUnauthorized: false }, () =>
      socket.write(payload),
    );
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, 5_000);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', done);
    socket.on('close', done);
  });
}

let mealCounter = 0;
/** A complete import record with distinct values. */
export function makeMeal(id?: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  mealCounter += 1;
  return {
    id: id ?? `m_${process.pid}_${Date.now().toString(36)}_${mealCounter}`,
    description: `description ${mealCounter}`,
    title: `title ${mealCounter}`,
    type: ['breakfast', 'lunch', 'dinner', 'snack'][mealCounter % 4],
    date: new Date(Date.UTC(2025, 2, 1, 12) + mealCounter * 60_000).toISOString(),
    caloriesTotal: 400.5 + mealCounter,
    proteins_g: 20.25,
    fats_g: 10.5,
    carbs_g: 50.75,
    fibers_g: 5,
    sodium_mg: 300.5,
    iron_mg: 2.25,
    calcium_mg: 120,
    ...overrides,
  };
}

let userCounter = 0;
/** A user id no other test uses. */
export function newUserId(prefix = 'u'): string {
  userCounter += 1;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${userCounter}`;
}
