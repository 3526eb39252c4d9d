import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import { after, before, test } from 'node:test';
import { generateApiKey } from '../../src/domain/api-key.js';
import { createSeededRandom, hashSeed } from '../../src/domain/seeded-random.js';
import { request, startTestServer, type TestServer } from '../support/server.js';
import { type FuzzKeys, type FuzzRequest, fuzzRequest } from './fuzz-requests.js';
import { createResponseReader, type RawResponse } from './raw-response-reader.js';

// The HTTP fuzz run (docs/reliability.md#every-answer-is-a-documented-one): at least 10 000
// generated requests, most of them malformed, over keep-alive and fresh TLS connections. Every
// answer must be one of the documented ones (docs/api.md#the-rest-of-the-transport,
// docs/errors.md): no 5xx, JSON with the common headers, an error code that matches its status, no
// key echoed; and the server must live through it all. `npm run test:long`; MEAL_EXPORT_FUZZ_SEED
// and MEAL_EXPORT_FUZZ_REQUESTS replay or widen it.

const SEED = process.env.MEAL_EXPORT_FUZZ_SEED ?? 'issue-10';
const REQUESTS = Number(process.env.MEAL_EXPORT_FUZZ_REQUESTS ?? 10_000);
const WORKERS = 8;
const ANSWER_TIMEOUT_MS = 20_000;

// docs/errors.md, written out here rather than imported from src.
const STATUS_OF_CODE: Readonly<Record<string, readonly number[]>> = {
  missing_parameter: [400],
  invalid_parameter: [400],
  bad_request: [400],
  missing_api_key: [401],
  invalid_api_key: [401],
  browser_forbidden: [403],
  not_found: [404],
  method_not_allowed: [405],
  resync_required: [410],
  request_too_large: [414, 431],
  rate_limited: [429],
};

let server: TestServer;

before(async () => {
  server = await startTestServer();
});

after(async () => {
  await server.stop();
});

/** One TLS connection that sends requests one after another and reads their answers in order. */
class Connection {
  private readonly reader = createResponseReader();
  private closed = false;
  private wake: (() => void) | undefined;

  private constructor(private readonly socket: TLSSocket) {
    socket.on('data', (chunk: Buffer) => {
      this.reader.push(chunk);
      this.wake?.();
    });
    const close = () => {
      this.closed = true;
      this.wake?.();
    };
    socket.on('end', close);
    socket.on('close', close);
    socket.on('error', close);
  }

  /** `localAddress`: any 127.x.y.z, so that the brute-force guard (per address) lets more keys be tried. */
  static open(target: TestServer, localAddress: string): Promise<Connection> {
    return new Promise((resolve, reject) => {
      // tls.connect's types have no localAddress: the TCP connection is made first.
      const tcp = netConnect({ host: target.host, port: target.port, localAddress });
      const socket = connect({ socket: tcp, rejectUnauthorized: false }, () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  get usable(): boolean {
    return !this.closed;
  }

  /** The answer to `sent`, or undefined when the connection closed (or stayed silent) without one. */
  async exchange(sent: FuzzRequest): Promise<RawResponse | undefined> {
    this.socket.write(sent.bytes);
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    for (;;) {
      const response = this.reader.take(sent.method, this.closed);
      if (response !== undefined) {
        // The server said it closes after this answer: no request may follow on this connection.
        if (response.headers.connection?.toLowerCase() === 'close') this.closed = true;
        return response;
      }
      if (this.closed || Date.now() > deadline) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ANSWER_TIMEOUT_MS);
        this.wake = () => {
          clearTimeout(timer);
          this.wake = undefined;
          resolve();
        };
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** What is wrong with an answer; empty when it is one of the contract's. */
function problemsOf(sent: FuzzRequest, res: RawResponse, keys: FuzzKeys): string[] {
  const problems: string[] = [];
  const h = res.headers;
  if (res.status >= 500 || res.status < 200) problems.push(`status ${res.status}`);
  if (h['content-type'] !== 'application/json; charset=utf-8') problems.push(`content-type ${h['content-type']}`);
  if (h['cache-control'] !== 'no-store') problems.push('no Cache-Control: no-store');
  if (h['x-content-type-options'] !== 'nosniff') problems.push('no nosniff');
  if (h['strict-transport-security'] !== 'max-age=31536000') problems.push('no HSTS');
  if (h['x-powered-by'] !== undefined) problems.push('X-Powered-By');
  if (Object.keys(h).some((name) => name.startsWith('access-control-'))) problems.push('a CORS header');
  if (res.status === 401 && h['www-authenticate'] !== 'Bearer realm="meal-export"')
    problems.push('401 without WWW-Authenticate');
  if (res.status === 405 && h.allow !== 'GET, HEAD') problems.push('405 without Allow');
  if (res.status === 429 && !/^\d+$/.test(h['retry-after'] ?? '')) problems.push('429 without Retry-After');
  const text = res.body.toString('utf8');
  for (const key of [keys.valid, ...keys.strays]) if (text.includes(key.slice(4))) problems.push('a key is echoed');
  if (sent.method === 'HEAD') return problems;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [...problems, `not JSON: ${text.slice(0, 80)}`];
  }
  if (res.status === 200) {
    if (typeof body !== 'object' || body === null) problems.push('a 200 that is not an object');
    return problems;
  }
  const error = (body as { error?: { code?: unknown; message?: unknown } }).error;
  const statuses = typeof error?.code === 'string' ? STATUS_OF_CODE[error.code] : undefined;
  if (statuses === undefined || !statuses.includes(res.status))
    problems.push(`code ${String(error?.code)} with ${res.status}`);
  if (typeof error?.message !== 'string' || error.message === '') problems.push('no message');
  return problems;
}

test(
  '10 000 fuzzed requests over keep-alive and fresh connections: every answer the contract’s, no 5xx, no crash, no key echoed',
  { timeout: 600_000 },
  async () => {
    const { key } = await server.createKey('u_fuzz');
    const keys: FuzzKeys = { valid: key, strays: [generateApiKey(), generateApiKey()] };
    const random = createSeededRandom(hashSeed(SEED));
    const requests = Array.from({ length: REQUESTS }, () => fuzzRequest(random, keys));

    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let unanswered = 0;
    let fresh = 0;
    let reused = 0;
    const started = Date.now();

    async function worker(index: number): Promise<void> {
      let connection: Connection | undefined;
      for (let i = index; i < requests.length; i += WORKERS) {
        const sent = requests[i]!;
        // Half the well-framed requests share a kept-alive connection; the rest get their own.
        const ownConnection = sent.ownConnection || i % 2 === 0;
        if (ownConnection || connection === undefined || !connection.usable) {
          if (!ownConnection) connection?.close();
          const opened = await Connection.open(server, `127.0.${(i >> 8) & 255}.${(i & 255) | 1}`);
          if (ownConnection) {
            fresh += 1;
            const res = await opened.exchange(sent);
            opened.close();
            record(i, sent, res);
            continue;
          }
          connection = opened;
        }
        reused += 1;
        record(i, sent, await connection.exchange(sent));
      }
      connection?.close();
    }

    function record(i: number, sent: FuzzRequest, res: RawResponse | undefined): void {
      if (res === undefined) {
        unanswered += 1;
        if (failures.length < 20) failures.push(`#${i} no answer: ${sent.label}`);
        return;
      }
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const problems = problemsOf(sent, res, keys);
      if (problems.length > 0 && failures.length < 20) failures.push(`#${i} ${problems.join('; ')}: ${sent.label}`);
    }

    await Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index)));
    const seconds = (Date.now() - started) / 1000;
    const summary = [...statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
    console.log(
      `fuzz seed=${SEED}: ${REQUESTS} requests in ${seconds.toFixed(1)} s (${fresh} on fresh connections, ${reused} on kept-alive ones); ${summary}; unanswered: ${unanswered}`,
    );

    assert.deepEqual(failures, [], 'every answer is the contract’s');
    assert.equal(unanswered, 0);
    assert.ok(![...statuses.keys()].some((status) => status >= 500), 'no 5xx');
    assert.equal(server.child.exitCode, null, 'the server is still running');
    assert.equal((await request(server, { path: '/healthz' })).status, 200, 'and still answers');
    const errors = server
      .logs()
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line));
    assert.deepEqual(errors, [], 'nothing logged as an error');
    assert.ok(!server.logs().includes(key.slice(4)), 'no key in the logs');
  },
);
