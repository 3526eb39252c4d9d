import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import {
  createMealExportClient,
  type HttpTransport,
  MealExportAuthError,
  MealExportBadRequestError,
  MealExportError,
  MealExportHttpError,
  MealExportNetworkError,
  MealExportRateLimitError,
  MealExportResponseError,
  MealExportResyncRequiredError,
  type ResponseInfo,
  type WaitEvent,
} from '../../src/client/index.js';
import { makeMeal, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { waitFor } from '../support/wait-for.js';

let server: ServedApp;
let ca: string;

before(async () => {
  server = await startInProcessServer();
  ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
});

after(async () => {
  await server.stop();
});

describe('errors from the real server', { concurrency: true }, () => {
  test('a 401 is a MealExportAuthError with the contract code, the body and a self-describing message', async () => {
    const client = createMealExportClient({ baseUrl: server.url, apiKey: `mxk_${'0'.repeat(49)}`, ca });
    const error = await client.listMeals({ lastModifiedSince: '2025-01-01' }).catch((e: unknown) => e);
    client.close();
    assert.ok(error instanceof MealExportAuthError);
    assert.ok(error instanceof MealExportHttpError && error instanceof MealExportError);
    assert.equal(error.status, 401);
    assert.equal(error.code, 'invalid_api_key');
    assert.equal(error.message, 'Request failed with 401 invalid_api_key: GET /v1/meals');
    assert.equal(error.serverMessage, 'Invalid API key.');
    assert.deepEqual(error.body, { error: { message: 'Invalid API key.', code: 'invalid_api_key' } });
    assert.equal(error.response.headers['www-authenticate'], 'Bearer realm="meal-export"');
  });

  test('a 400 is a MealExportBadRequestError naming the parameter at fault; a 410 a MealExportResyncRequiredError', async () => {
    const userId = newUserId('sdk-err');
    const { key } = await server.createKey(userId);
    // A pruned tombstone: includeDeleted from before it is 410.
    const gone = makeMeal();
    await server.importMeals(userId, [gone]);
    await server.deleteMeal(userId, String(gone.id));
    await server.pruneTombstones(0);
    const client = createMealExportClient({ baseUrl: server.url, apiKey: key, ca, minIntervalMs: 0 });
    const error = await client.listMeals({ lastModifiedSince: '2025-01-01', limit: 0 }).catch((e: unknown) => e);
    const cursor = await client
      .listMeals({ lastModifiedSince: '2025-01-01', cursor: 'not-a-cursor' })
      .catch((e: unknown) => e);
    const resync = await client
      .listMeals({ lastModifiedSince: '2020-01-01', includeDeleted: true })
      .catch((e: unknown) => e);
    client.close();
    assert.ok(error instanceof MealExportBadRequestError);
    assert.equal(error.code, 'invalid_parameter');
    assert.equal(error.param, 'limit');
    assert.equal(error.message, 'Request failed with 400 invalid_parameter (limit): GET /v1/meals');
    assert.ok(cursor instanceof MealExportBadRequestError);
    assert.equal(cursor.param, 'cursor');
    assert.ok(resync instanceof MealExportResyncRequiredError);
    assert.equal(resync.code, 'resync_required');
  });

  test('a certificate it does not trust fails at once, without retries, and says to pass ca', async () => {
    const waits: WaitEvent[] = [];
    const client = createMealExportClient({ baseUrl: server.url, apiKey: 'mxk_x', onWait: (e) => waits.push(e) });
    const error = await client.listMeals({ lastModifiedSince: '2025-01-01' }).catch((e: unknown) => e);
    client.close();
    assert.ok(error instanceof MealExportNetworkError);
    assert.equal(error.errorCode, 'DEPTH_ZERO_SELF_SIGNED_CERT');
    assert.match(
      error.message,
      /^cannot connect to https:\/\/127\.0\.0\.1:\d+: .*not trusted .*pass its cert\.pem as ca/,
    );
    assert.equal(error.problem, 'certificate');
    assert.equal(error.retryable, false);
    assert.deepEqual(waits, []);
  });
});

/** A valid empty page. */
const PAGE = JSON.stringify({
  ok: true,
  userId: 'u',
  lastModifiedSince: '2025-01-01T00:00:00.000Z',
  count: 0,
  meals: [],
  hasMore: false,
  nextCursor: null,
});

// The messages of assert.ok here are not optional: under tsx a failing assert.ok without one
// spends minutes of CPU building its own (privatenumber/tsx#548).
describe('the response size cap (maxResponseBytes)', { concurrency: true }, () => {
  const CAP = 1024 * 1024;
  // Closed after the suite, even when a test failed or timed out half way.
  const toClose: (() => void)[] = [];
  after(() => {
    for (const close of toClose) close();
  });

  /** A plain HTTP server (the SDK speaks http:// behind a TLS proxy) answering every request with `answer`. */
  async function serving(answer: http.RequestListener) {
    let asked = 0;
    let closedConnections = 0;
    const listener = http.createServer((request, response) => {
      asked += 1;
      answer(request, response);
    });
    listener.on('connection', (socket) => socket.on('close', () => (closedConnections += 1)));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    toClose.push(() => {
      listener.closeAllConnections();
      listener.close();
    });
    const { port } = listener.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, asked: () => asked, closedConnections: () => closedConnections };
  }

  const answering = (body: Buffer, headers: Record<string, string> = {}) =>
    serving((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', ...headers });
      response.end(body);
    });

  /**
   * 64 times the cap, then silence without an end: a client that read to the end before
   * refusing would wait for ever (and a bounded wait, so that such a client cannot eat the machine).
   */
  const unending = () =>
    serving((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let left = (64 * CAP) / chunk.length;
      const more = () => {
        while (left > 0 && !response.destroyed) {
          left -= 1;
          if (!response.write(chunk)) return;
        }
      };
      response.on('drain', more);
      more();
    });

  /** The built-in node:https transport, and a fetch of the caller's (Node's own). */
  const transports = { 'node:https': {}, fetch: { fetch: globalThis.fetch } } as const;
  type Via = (typeof transports)[keyof typeof transports];

  async function ask(served: { url: string }, via: Via) {
    const waits: WaitEvent[] = [];
    const client = createMealExportClient({
      baseUrl: served.url,
      apiKey: 'mxk_k',
      minIntervalMs: 0,
      maxResponseBytes: CAP,
      onWait: (e) => waits.push(e),
      ...via,
    });
    toClose.push(() => client.close());
    const result = await client.listMeals({ lastModifiedSince: '2025-01-01' }).catch((e: unknown) => e);
    return { result, waits };
  }

  async function refusal(via: Via, body: Buffer, headers: Record<string, string> = {}) {
    const served = await answering(body, headers);
    const { result, waits } = await ask(served, via);
    return { error: result, waits, asked: served.asked() };
  }

  for (const [name, via] of Object.entries(transports)) {
    test(`${name}: is refused once it passes the cap, asked once and not retried, saying to ask for smaller pages`, async () => {
      const { error, waits, asked } = await refusal(via, Buffer.alloc(3 * CAP, 0x20));
      assert.ok(error instanceof MealExportNetworkError, `not refused: ${String(error)}`);
      assert.equal(error.errorCode, 'ERR_RESPONSE_TOO_LARGE');
      assert.match(error.message, /smaller pages/);
      assert.deepEqual(waits, []);
      assert.equal(asked, 1);
    });

    test(`${name}: counts the decompressed bytes: under 100 KB of gzip that inflate to 64 MB are refused`, async () => {
      const bomb = gzipSync(Buffer.alloc(64 * CAP, 0x20));
      assert.ok(bomb.length < 100_000);
      const { error } = await refusal(via, bomb, { 'content-encoding': 'gzip' });
      assert.ok(error instanceof MealExportNetworkError, `not refused: ${String(error)}`);
      assert.equal(error.errorCode, 'ERR_RESPONSE_TOO_LARGE');
    });

    test(
      `${name}: a body that does not end is refused and its connection closed, not read on`,
      { timeout: 20_000 },
      async () => {
        const served = await unending();
        const { result } = await ask(served, via);
        assert.ok(result instanceof MealExportNetworkError, `not refused: ${String(result)}`);
        assert.equal(result.errorCode, 'ERR_RESPONSE_TOO_LARGE');
        // The client is still open (closed after the suite): refusing the body must itself hang up.
        await waitFor('the client to hang up', () => served.closedConnections() > 0, 5000);
      },
    );

    test(`${name}: a page of exactly the cap is accepted intact, characters split across chunks included`, async () => {
      // Characters of 2, 3 and 4 bytes, 9 in all: whatever the chunks' sizes, the chunks
      // split characters (their bytes must be decoded together across the cut).
      const skeleton = { ...JSON.parse(PAGE), userId: '' } as Record<string, unknown>;
      const room = CAP - Buffer.byteLength(JSON.stringify(skeleton));
      const userId = '\u00e9\u20ac\u{1F35D}'.repeat(Math.floor(room / 9)) + 'u'.repeat(room % 9);
      const body = Buffer.from(JSON.stringify({ ...skeleton, userId }));
      assert.equal(body.length, CAP);
      const served = await answering(body);
      const { result } = await ask(served, via);
      assert.deepEqual(result, { ...skeleton, userId });
    });

    test(`${name}: a Content-Length over the cap is refused before the body is read`, { timeout: 20_000 }, async () => {
      // Headers only, then silence: a client that waited for the body would wait for ever.
      const served = await serving((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(CAP + 1) });
        response.flushHeaders();
      });
      const { result, waits } = await ask(served, via);
      assert.ok(result instanceof MealExportNetworkError, `not refused: ${String(result)}`);
      assert.equal(result.errorCode, 'ERR_RESPONSE_TOO_LARGE');
      assert.deepEqual(waits, []);
    });
  }
});

/** A transport answering from a script, recording what was asked. */
function scripted(answers: readonly (Partial<ResponseInfo> | Error)[]) {
  const asked: string[] = [];
  let next = 0;
  const transport: HttpTransport = {
    async get(url, headers) {
      asked.push(`${url.pathname}${url.search} ${headers.authorization}`);
      const answer = answers[Math.min(next, answers.length - 1)];
      next += 1;
      if (answer instanceof Error) throw answer;
      return { status: 200, headers: {}, text: '', ...answer };
    },
    close() {},
  };
  return { transport, asked };
}

const UNAVAILABLE = {
  status: 503,
  text: JSON.stringify({ error: { message: 'Storage unavailable.', code: 'unavailable' } }),
};
const reset = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

describe('waits and retries', { concurrency: true }, () => {
  const base = { baseUrl: 'https://meals.example/api', apiKey: 'mxk_k', minIntervalMs: 0 };

  test('retries 5xx and network errors with capped, jittered backoff, then answers', async () => {
    const { transport, asked } = scripted([UNAVAILABLE, reset(), { text: PAGE }]);
    const waits: WaitEvent[] = [];
    const client = createMealExportClient({
      ...base,
      transport,
      backoff: { initialMs: 40, maxMs: 60 },
      onWait: (e) => waits.push(e),
    });
    const page = await client.listMeals({ lastModifiedSince: '2025-01-01', limit: 10 });
    assert.equal(page.count, 0);
    assert.equal(asked.length, 3);
    assert.equal(asked[0], '/api/v1/meals?lastModifiedSince=2025-01-01&limit=10 Bearer mxk_k');
    for (const wait of waits) {
      assert.equal(wait.reason, 'retry');
      assert.ok(wait.ms >= 0 && wait.ms <= 60, `${wait.ms} ms is within the cap`);
    }
  });

  test('gives up after maxRetries with the last error', async () => {
    const { transport, asked } = scripted([UNAVAILABLE]);
    const client = createMealExportClient({ ...base, transport, maxRetries: 2, backoff: { initialMs: 5 } });
    const error = await client.listMeals({ lastModifiedSince: '2025-01-01' }).catch((e: unknown) => e);
    assert.ok(error instanceof MealExportHttpError);
    assert.equal(error.code, 'unavailable');
    assert.equal(error.message, 'Request failed with 503 unavailable: GET /api/v1/meals');
    assert.equal(asked.length, 3);

    const network = scripted([reset()]);
    const offline = createMealExportClient({
      ...base,
      transport: network.transport,
      maxRetries: 1,
      backoff: { initialMs: 5 },
    });
    const failure = await offline.listMeals({ lastModifiedSince: '2025-01-01' }).catch((e: unknown) => e);
    assert.ok(failure instanceof MealExportNetworkError);
    assert.equal(failure.message, 'no answer from https://meals.example: connection reset (gave up after 2 attempts)');
    assert.equal(failure.errorCode, 'ECONNRESET');
    assert.equal(failure.problem, 'connection_reset');
    assert.equal(failure.attempts, 2);
    assert.equal(network.asked.length, 2);
  });

  test("waits a 429's Retry-After, and throws MealExportRateLimitError when it is longer than allowed", async () => {
    const limited = {
      status: 429,
      headers: { 'retry-after': '1' },
      text: '{"error":{"message":"x","code":"rate_limited"}}',
    };
    const waits: WaitEvent[] = [];
    const ok = scripted([limited, { text: PAGE }]);
    const client = createMealExportClient({ ...base, transport: ok.transport, onWait: (e) => waits.push(e) });
    const started = Date.now();
    await client.listMeals({ lastModifiedSince: '2025-01-01' });
    assert.ok(Date.now() - started >= 1000);
    assert.deepEqual(waits, [{ reason: 'rate_limited', ms: 1000 }]);

    const daily = scripted([{ ...limited, headers: { 'retry-after': '7200' } }]);
    const patient = createMealExportClient({ ...base, transport: daily.transport });
    const error = await patient.listMeals({ lastModifiedSince: '2025-01-01' }).catch((e: unknown) => e);
    assert.ok(error instanceof MealExportRateLimitError);
    assert.equal(error.retryAfterMs, 7_200_000);
  });

  test('a 2xx that is not a meal page is a MealExportResponseError, not retried', async () => {
    const { transport, asked } = scripted([{ text: '<html>proxy</html>' }]);
    const client = createMealExportClient({ ...base, transport });
    const error = await client.listMeals({ lastModifiedSince: '2025-01-01' }).catch((e: unknown) => e);
    assert.ok(error instanceof MealExportResponseError);
    assert.equal(asked.length, 1);
  });

  test('refuses ambiguous transports and a missing key up front', () => {
    assert.throws(() => createMealExportClient({ ...base, ca: 'x', fetch: globalThis.fetch }), /at most one of/);
    assert.throws(() => createMealExportClient({ ...base, apiKey: '' }), /apiKey is required/);
  });
});
