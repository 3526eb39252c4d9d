import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  createMealExportClient,
  type MealExportClientOptions,
  MealExportNetworkError,
  type WaitEvent,
} from '../../src/client/index.js';
import { describeNetworkFailure } from '../../src/client/network-failure.js';
import { createPullProgress } from '../../src/client/pull/pull-progress.js';
import { runCli } from '../support/cli.js';
import { freePort } from '../support/free-port.js';
import { BIN, cleanEnv, makeTempDir, PROJECT_ROOT } from '../support/project.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A request without an answer says at once what failed and where, is retried
 * only when it may pass, and a wrong scheme (http:// to HTTPS, https:// to plain HTTP) fails fast.
 * Real sockets on 127.0.0.1: a port with nothing listening, servers that hang up, real TLS.
 */

let server: TestServer;
let ca: string;
/** A plain HTTP server (what an https:// URL may reach by mistake). */
let plain: http.Server;
/** A server that closes every connection without a byte. */
let closer: net.Server;
const temp = makeTempDir('connection-failures');

const portOf = (s: net.Server) => (s.address() as net.AddressInfo).port;
const listen = (s: net.Server) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
const close = (s: net.Server) => new Promise<void>((resolve) => s.close(() => resolve()));

before(async () => {
  server = await startTestServer();
  ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
  plain = http.createServer((_request, response) => response.end('{}'));
  closer = net.createServer((socket) => socket.destroy());
  await Promise.all([listen(plain), listen(closer)]);
});

after(async () => {
  plain.closeAllConnections();
  await Promise.all([server.stop(), close(plain), close(closer)]);
  temp.remove();
});

/** listMeals once; resolves what it threw, the waits it told, and how long it took. */
async function failure(options: Omit<MealExportClientOptions, 'apiKey' | 'onWait'>) {
  const waits: WaitEvent[] = [];
  const client = createMealExportClient({
    apiKey: 'mxk_k',
    minIntervalMs: 0,
    ...options,
    onWait: (e) => waits.push(e),
  });
  const started = Date.now();
  const error = await client.listMeals({ lastModifiedSince: '2025-01-01' }).catch((e: unknown) => e);
  const ms = Date.now() - started;
  client.close();
  assert.ok(error instanceof MealExportNetworkError, `not a network error: ${String(error)}`);
  return { error, waits, ms };
}

const fast = { maxRetries: 2, backoff: { initialMs: 5, maxMs: 10 } };

describe('the SDK names what failed and where', { concurrency: true }, () => {
  test('nothing listening: connection refused, retried, each retry told with its count, the URL in the final error', async () => {
    const port = await freePort();
    const { error, waits } = await failure({ baseUrl: `https://127.0.0.1:${port}`, ca, ...fast });
    assert.equal(error.errorCode, 'ECONNREFUSED');
    assert.equal(error.problem, 'connection_refused');
    assert.equal(error.retryable, true);
    assert.equal(error.attempts, 3);
    assert.equal(
      error.message,
      `cannot connect to https://127.0.0.1:${port}: connection refused (gave up after 3 attempts)`,
    );
    assert.deepEqual(
      waits.map((w) => [w.reason, w.attempt, w.retries, w.error?.message]),
      [1, 2].map((n) => ['retry', n, 2, `cannot connect to https://127.0.0.1:${port}: connection refused`]),
    );
  });

  test('a retry without a delay (full jitter may draw 0 ms) is told all the same', async () => {
    const port = await freePort();
    const { waits } = await failure({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 1, backoff: { initialMs: 0 } });
    assert.deepEqual(
      waits.map((w) => [w.reason, w.ms, w.attempt]),
      [['retry', 0, 1]],
    );
  });

  for (const kind of ['node:https', 'fetch'] as const) {
    const via = (options: { baseUrl: string }) => (kind === 'fetch' ? { ...options, fetch } : options);

    test(`${kind}: an http:// URL to the HTTPS service fails at once, saying it speaks HTTPS`, async () => {
      const { error, waits, ms } = await failure({ ...via({ baseUrl: `http://127.0.0.1:${server.port}` }), ...fast });
      assert.equal(error.problem, 'speaks_https');
      assert.equal(error.errorCode, 'ERR_SERVER_SPEAKS_HTTPS');
      assert.equal(error.retryable, false);
      assert.equal(error.attempts, 1);
      assert.equal(
        error.message,
        `127.0.0.1:${server.port} speaks HTTPS but the URL says http://: use https://127.0.0.1:${server.port}`,
      );
      assert.deepEqual(waits, []);
      assert.ok(ms < 2500, `${ms} ms`);
    });

    test(`${kind}: an https:// URL to a plain HTTP server fails at once, saying it speaks plain HTTP`, async () => {
      const port = portOf(plain);
      const { error, waits, ms } = await failure({ ...via({ baseUrl: `https://127.0.0.1:${port}` }), ...fast });
      assert.equal(error.problem, 'speaks_plain_http');
      assert.equal(error.retryable, false);
      assert.match(error.message, new RegExp(`^127\\.0\\.0\\.1:${port} speaks plain HTTP but the URL says https://`));
      assert.deepEqual(waits, []);
      assert.ok(ms < 2500, `${ms} ms`);
    });
  }

  // node:https only: Node 20's fetch (undici) connects again and again to a server that closes
  // every connection at once, and never fails.
  test('a server that hangs up is a reset, retried, not taken for HTTPS', async () => {
    const port = portOf(closer);
    const { error, waits } = await failure({ baseUrl: `http://127.0.0.1:${port}`, ...fast });
    assert.equal(error.problem, 'connection_reset');
    assert.equal(error.retryable, true);
    assert.equal(error.attempts, 3);
    assert.match(
      error.message,
      new RegExp(`^no answer from http://127\\.0\\.0\\.1:${port}: connection reset \\(gave up after 3 attempts\\)$`),
    );
    assert.equal(waits.length, 2);
  });

  test('an https:// URL to a server that hangs up before the handshake is retried', async () => {
    const port = portOf(closer);
    const { error } = await failure({ baseUrl: `https://127.0.0.1:${port}`, ca, ...fast });
    // The server's reset reaches the client on a read (ECONNRESET) or, when it comes before
    // the ClientHello is written, on that write (EPIPE): the same failure, in the same words.
    assert.ok(['ECONNRESET', 'EPIPE'].includes(error.errorCode ?? ''), error.errorCode);
    assert.equal(error.problem, 'connection_reset');
    assert.equal(error.retryable, true);
    assert.match(error.message, /connection closed before the TLS handshake \(gave up after 3 attempts\)$/);
  });
});

describe('network error codes in words', () => {
  const url = 'https://meals.example:8443/v1/meals?lastModifiedSince=x';
  const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

  test('an unknown host is not retried; a DNS lookup that failed for now is', () => {
    const unknown = describeNetworkFailure(url, coded('ENOTFOUND'));
    assert.deepEqual(unknown, {
      problem: 'host_not_found',
      code: 'ENOTFOUND',
      text: 'cannot connect to https://meals.example:8443: host not found',
      retryable: false,
    });
    const again = describeNetworkFailure(url, coded('EAI_AGAIN'));
    assert.equal(again.problem, 'dns_unavailable');
    assert.equal(again.retryable, true);
    assert.match(
      again.text,
      /^cannot connect to https:\/\/meals\.example:8443: host not found \(DNS lookup failed for now\)$/,
    );
  });

  test("fetch's TypeError is read through its cause; timeouts and certificates have their words", () => {
    const refused = new TypeError('fetch failed', { cause: coded('ECONNREFUSED') });
    assert.equal(
      describeNetworkFailure(url, refused).text,
      'cannot connect to https://meals.example:8443: connection refused',
    );
    assert.equal(describeNetworkFailure(url, refused).code, 'ECONNREFUSED');
    assert.equal(
      describeNetworkFailure(url, coded('ETIMEDOUT')).text,
      'no answer from https://meals.example:8443: timed out',
    );
    const expired = describeNetworkFailure(url, coded('CERT_HAS_EXPIRED'));
    assert.equal(expired.problem, 'certificate');
    assert.equal(expired.retryable, false);
    assert.match(expired.text, /certificate has expired \(CERT_HAS_EXPIRED\)$/);
  });
});

describe('pull on stderr that is not a terminal', { concurrency: true }, () => {
  const args = (url: string, name: string) => [
    'pull',
    '--url',
    url,
    '--state',
    path.join(temp.dir, `${name}.state.json`),
    '--out',
    path.join(temp.dir, `${name}.csv`),
  ];
  const env = { MEAL_EXPORT_API_KEY: 'mxk_k' };

  test('nothing listening: the first retry is told within a second, naming the URL and the reason', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, ...args(`https://127.0.0.1:${port}`, 'refused')], {
      cwd: PROJECT_ROOT,
      env: cleanEnv(env),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      // The CLI starts in ~0.3 s; its first request fails at once.
      await waitFor('the first retry notice', () => stderr.includes('\n'), 1500);
      assert.match(
        stderr,
        new RegExp(
          `^meal-export: cannot connect to https://127\\.0\\.0\\.1:${port}: connection refused; retrying in \\d+(\\.\\d)? s \\(1 of 6\\)\\n`,
        ),
      );
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  test('an http:// URL to the HTTPS service fails fast and says so', async () => {
    const started = Date.now();
    const run = await runCli(args(`http://127.0.0.1:${server.port}`, 'http'), { env });
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      `meal-export: 127.0.0.1:${server.port} speaks HTTPS but the URL says http://: use https://127.0.0.1:${server.port}\n`,
    );
    assert.ok(Date.now() - started < 5000);
  });

  test('an https:// URL to a plain HTTP server fails fast and says so', async () => {
    const started = Date.now();
    const run = await runCli(args(`https://127.0.0.1:${portOf(plain)}`, 'https'), { env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^meal-export: 127\.0\.0\.1:\d+ speaks plain HTTP but the URL says https:\/\//);
    assert.ok(Date.now() - started < 5000);
  });
});

test('a retry is a notice on a terminal and off one; a terminal then counts down', () => {
  const recorder = (isTTY: boolean) => {
    const stream = { isTTY, text: '', write: (t: string) => ((stream.text += t), true) };
    return stream;
  };
  const failed = new Error('cannot connect to https://127.0.0.1:9999: connection refused');
  const terminal = recorder(true);
  const shown = createPullProgress(terminal);
  shown.retrying(failed, 2000, 1, 6);
  shown.done();
  assert.match(
    terminal.text,
    /^meal-export: cannot connect to .*; retrying in 2 s \(1 of 6\)\n.*waiting 2 s before trying again/s,
  );
  const pipe = recorder(false);
  const log = createPullProgress(pipe);
  log.retrying(failed, 400, 2, 6);
  log.done();
  assert.equal(
    pipe.text,
    'meal-export: cannot connect to https://127.0.0.1:9999: connection refused; retrying in 0.4 s (2 of 6)\n',
  );
});
