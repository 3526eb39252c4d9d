import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type HostApiServer, startHostApiServer } from '../support/host-api.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { rawTlsRequest, type ServedApp } from '../support/server.js';
import { appPageUrl } from '../web/page-client.js';

// The three listeners (the public one, the host API's, the app page's) are made by one kit
// (src/listener/listener-kit.ts) and answer failures through one mapping
// (src/listener/error-mapping.ts): the two JSON listeners alike, the page in HTML.

interface RawAnswer {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

/** An answer as it came over the socket: the status, the headers by lower-case name, the body. */
function parse(raw: string): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  assert.ok(end > 0, `an HTTP answer: ${JSON.stringify(raw)}`);
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: raw.slice(end + 4) };
}

interface JsonError {
  readonly code: string;
  readonly message: string;
}

/** A JSON listener's error answer: its status and the contract's error, with the headers every answer carries. */
function jsonError(answer: RawAnswer): { status: number; error: JsonError } {
  assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8', answer.body);
  assert.equal(answer.headers.get('cache-control'), 'no-store');
  assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(answer.headers.get('strict-transport-security'), 'max-age=31536000');
  const { error } = JSON.parse(answer.body) as { error: JsonError };
  return { status: answer.status, error };
}

const PUBLIC_WHERE = 'No such resource: the API is GET /v1/meals (see /v1/openapi.json).';
const HOST_WHERE = 'No such resource: the host API lives under /host/v1 (see /host/v1/openapi.json).';

describe('one kit for the three listeners', () => {
  let server: HostApiServer<ServedApp> | undefined;
  let page: { host: string; port: number };
  const served = () => {
    if (server === undefined) throw new Error('the server did not start');
    return server;
  };
  const json = () => ({ public: { host: served().host, port: served().port }, host: served().hostApi });

  before(async () => {
    server = await startHostApiServer({ extraArgs: ['--app-port', '0'] }, startInProcessServer);
    const url = new URL(await appPageUrl(server));
    page = { host: url.hostname, port: Number(url.port) };
  });
  after(async () => {
    await server?.stop();
  });

  test('the same malformed request gets the same JSON error on both JSON listeners', async () => {
    const malformed = {
      'a path that does not percent-decode': 'GET /%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      'a header the parser refuses': 'GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\nConnection: close\r\n\r\n',
      'an HTTP/1.1 request without Host': 'GET / HTTP/1.1\r\nConnection: close\r\n\r\n',
      'headers over 16 KiB': `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\nConnection: close\r\n\r\n`,
    };
    for (const [what, raw] of Object.entries(malformed)) {
      const onPublic = jsonError(parse(await rawTlsRequest(json().public, raw)));
      const onHost = jsonError(parse(await rawTlsRequest(json().host, raw)));
      assert.deepEqual(onHost, onPublic, what);
      assert.ok(onPublic.status === 400 || onPublic.status === 431, `${what}: ${onPublic.status}`);
    }
  });

  test('CONNECT and an unknown Expect are answered in JSON on both, each saying where its API is', async () => {
    const requests = {
      CONNECT: 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      'Expect: tea': 'GET /nowhere HTTP/1.1\r\nHost: x\r\nExpect: tea\r\nConnection: close\r\n\r\n',
    };
    for (const [what, raw] of Object.entries(requests)) {
      const onPublic = jsonError(parse(await rawTlsRequest(json().public, raw)));
      const onHost = jsonError(parse(await rawTlsRequest(json().host, raw)));
      assert.deepEqual(onPublic, { status: 404, error: { code: 'not_found', message: PUBLIC_WHERE } }, what);
      assert.deepEqual(onHost, { status: 404, error: { code: 'not_found', message: HOST_WHERE } }, what);
    }
  });

  test("a page error renders the page's HTML with its headers, never the framework's JSON", async () => {
    const answers = {
      'a path that does not percent-decode': {
        raw: 'GET /%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        status: 400,
      },
      'no such page': { raw: 'GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', status: 404 },
      'a form that is not urlencoded': {
        raw: 'POST /keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
        status: 415,
      },
    };
    for (const [what, { raw, status }] of Object.entries(answers)) {
      const answer = parse(await rawTlsRequest(page, raw));
      assert.equal(answer.status, status, what);
      assert.equal(answer.headers.get('content-type'), 'text/html; charset=utf-8', what);
      assert.match(answer.headers.get('content-security-policy') ?? '', /default-src 'none'/, what);
      assert.equal(answer.headers.get('cache-control'), 'no-store', what);
      assert.match(answer.body, /^<!doctype html>/i, what);
      // The request is not echoed: a mistyped path stays out of the page.
      assert.ok(!answer.body.includes('%zz'), what);
    }
  });
});
