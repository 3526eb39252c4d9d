import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, test } from 'node:test';
import { generateApiKey } from '../../src/domain/api-key.js';
import { rawTlsRequest, request, startTestServer, type TestResponse, type TestServer } from '../support/server.js';
import { assertError, JSON_CONTENT_TYPE, OLD, sleep } from './http-expect.js';
import { parseRawResponse } from './tls-client.js';

// What the public listener answers, whatever it is sent (docs/api.md#the-rest-of-the-transport and
// docs/errors.md): the documented JSON with its headers, and nothing of the request echoed back.
let server: TestServer;

before(async () => {
  server = await startTestServer();
});

after(async () => {
  await server.stop();
});

const MEALS = `/v1/meals?lastModifiedSince=${OLD}`;

/** Neither the key's secret part nor the request's path or query comes back in the body. */
function assertNothingEchoed(res: TestResponse, sent: string, label: string): void {
  assert.ok(!res.text.includes(sent.slice(4)), `[${label}] the key is echoed: ${res.text}`);
  assert.ok(!res.text.includes('/v1/meals/'), `[${label}] the path is echoed: ${res.text}`);
}

test('no error body echoes the path or the query, so a key pasted into the URL is not sent back', async () => {
  const { key } = await server.createKey('u_echo');
  const stray = generateApiKey();
  const cases: [label: string, path: string, status: number, code: string, param?: string | null][] = [
    ['key in the path', `/v1/meals/${stray}`, 404, 'not_found', null],
    ['key as the path', `/${stray}?lastModifiedSince=${OLD}`, 404, 'not_found', null],
    ['key percent-encoded in the path', `/v1/meals/${stray.replace('_', '%5F')}`, 404, 'not_found', null],
    ['key as a query parameter value', `${MEALS}&api_key=${stray}`, 400, 'invalid_parameter', 'api_key'],
    ['key as a bare query parameter', `${MEALS}&${stray}`, 400, 'invalid_parameter'],
    ['key as an encoded query parameter', `${MEALS}&${stray.replace('_', '%5F')}=1`, 400, 'invalid_parameter'],
  ];
  for (const [label, path, status, code, param] of cases) {
    const res = await request(server, { path, key });
    assertError(res, status, code, { label, ...(param === undefined ? {} : { param }) });
    assertNothingEchoed(res, stray, label);
  }
});

/** Sends raw bytes over TLS and checks the answer is the contract's JSON error with its headers. */
async function assertRawAnswer(payload: string, status: number, code: string, label: string): Promise<void> {
  const res = parseRawResponse(await rawTlsRequest(server, payload));
  const where = `[${label}] ${res.status} ${res.text.slice(0, 200)}`;
  assert.equal(res.status, status, where);
  assert.equal((res.json as { error?: { code?: string } } | undefined)?.error?.code, code, where);
  assert.equal(res.headers['content-type'], JSON_CONTENT_TYPE, `Content-Type ${where}`);
  assert.equal(res.headers['cache-control'], 'no-store', `Cache-Control ${where}`);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', `nosniff ${where}`);
  assert.equal(res.headers['strict-transport-security'], 'max-age=31536000', `HSTS ${where}`);
}

const longQuery = `lastModifiedSince=${OLD}&x=${'a'.repeat(9 * 1024)}`;
const bigHeader = `X-Pad: ${'b'.repeat(17 * 1024)}\r\n`;

test('what Node would answer itself is the contract’s JSON: an unknown Expect, no Host, CONNECT, a path that fails decoding', async () => {
  const cases: [label: string, payload: string, status: number, code: string][] = [
    [
      'unknown Expect',
      `GET ${MEALS} HTTP/1.1\r\nHost: x\r\nExpect: the-unexpected\r\nConnection: close\r\n\r\n`,
      401,
      'missing_api_key',
    ],
    ['HTTP/1.1 without Host', 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n', 400, 'bad_request'],
    ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 404, 'not_found'],
    ['CONNECT /v1/meals', 'CONNECT /v1/meals HTTP/1.1\r\nHost: x\r\n\r\n', 405, 'method_not_allowed'],
    ['GET /%ZZ', 'GET /%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400, 'bad_request'],
    [
      'a broken UTF-8 escape in the path',
      'GET /v1/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      400,
      'bad_request',
    ],
    [
      '9 KiB URL with %ZZ',
      `GET /%ZZ?${longQuery} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      414,
      'request_too_large',
    ],
    [
      '17 KiB of headers with %ZZ',
      `GET /%ZZ HTTP/1.1\r\nHost: x\r\n${bigHeader}Connection: close\r\n\r\n`,
      431,
      'request_too_large',
    ],
  ];
  for (const [label, payload, status, code] of cases) await assertRawAnswer(payload, status, code, label);
});

test('an Expect: 100-continue request is answered at once like any other, without an interim 100', async () => {
  const payload = `GET ${MEALS} HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
  // A GET has no content to wait for (RFC 9110 section 10.1.1: the 100 may be omitted).
  await assertRawAnswer(payload, 401, 'missing_api_key', '100-continue');
});

test('a POST with Expect: 100-continue gets the interim 100 at once, then its answer once its content is sent', async () => {
  // Node's own client, as a client that asks first sends: the headers, then the form once the 100 comes.
  const form =
    'grant_type=authorization_code&code=nope&redirect_uri=https%3A%2F%2Fexample.com%2Fcb&client_id=app_none&code_verifier=v';
  const started = performance.now();
  const { status, body, continuedAfterMs } = await new Promise<{
    status: number;
    body: string;
    continuedAfterMs: number;
  }>((resolve, reject) => {
    let continuedAfterMs = -1;
    const req = httpsRequest(
      {
        host: server.host,
        port: server.port,
        path: '/oauth/token',
        method: 'POST',
        rejectUnauthorized: false,
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'Content-Length': Buffer.byteLength(form),
          Expect: '100-continue',
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, continuedAfterMs }));
      },
    );
    req.on('continue', () => {
      continuedAfterMs = performance.now() - started;
      req.end(form);
    });
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error('no answer within 5 s')));
    req.flushHeaders();
  });
  assert.ok(continuedAfterMs >= 0 && continuedAfterMs < 1_000, `the 100 came after ${continuedAfterMs} ms`);
  // The form was read: an app that does not exist is OAuth's invalid_client (RFC 6749 section 5.2).
  assert.equal(status, 401, body);
  assert.equal((JSON.parse(body) as { error?: string }).error, 'invalid_client', body);
});

test('every header line counts: past a thousand lines the size limit and the Origin and Authorization headers still apply', async () => {
  const userId = 'u_many_headers';
  const { key } = await server.createKey(userId);
  const lines = (count: number, line: (i: number) => string) =>
    Array.from({ length: count }, (_, i) => `${line(i)}\r\n`).join('');
  const head = (extra: string) => `GET ${MEALS} HTTP/1.1\r\nHost: x\r\n${extra}Connection: close\r\n\r\n`;
  // 2000 lines of 13 bytes: 26 KB in all, but the first thousand are under 16 KiB.
  await assertRawAnswer(
    head(lines(2000, (i) => `x-h-${String(i).padStart(4, '0')}: v`)),
    431,
    'request_too_large',
    '2000 headers',
  );
  // 1100 lines of 6 bytes (6.6 KB), then the header that matters.
  const filler = lines(1100, () => 'a: b');
  await assertRawAnswer(
    head(`${filler}Origin: https://app.example\r\n`),
    403,
    'browser_forbidden',
    'Origin after 1100',
  );
  const authorized = parseRawResponse(await rawTlsRequest(server, head(`${filler}Authorization: Bearer ${key}\r\n`)));
  assert.equal(authorized.status, 200, `Authorization after 1100 lines: ${authorized.text.slice(0, 200)}`);
  assert.equal((authorized.json as { userId?: string }).userId, userId);
});

test('headers past the parser’s own 64 KiB limit get their 431 even while the client is still sending', async () => {
  const big = `Authorization: Bearer ${'x'.repeat(17 * 1024)}\r\n`;
  const lines = Array.from({ length: 3000 }, (_, i) => `x-h${i}: v\r\n`).join('');
  // The parser fails once on the first 64 KiB, and again on each chunk that follows.
  await assertRawAnswer(
    `POST ${MEALS} HTTP/1.1\r\nHost: x\r\n${big}${lines}${big}${big}\r\n`,
    431,
    'request_too_large',
    '87 KB',
  );
});

test('bad bytes after a complete request get their 400 after that request’s answer, and a broken body no second answer', async () => {
  const { key } = await server.createKey('u_pipelined');
  const statusesOf = (raw: string) => [...raw.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
  const pipelined = await rawTlsRequest(
    server,
    `GET ${MEALS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\nNOT-HTTP\r\n\r\n`,
  );
  assert.deepEqual(statusesOf(pipelined), [200, 400], 'the page, then the refusal of the bad bytes');
  const brokenBody = await rawTlsRequest(
    server,
    'GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
  );
  assert.deepEqual(statusesOf(brokenBody), [200], 'one request, one answer');
});

/** The request lines logged for a URL holding `fragment`, once its answer is sent (then it is logged). */
async function requestLinesWith(fragment: string): Promise<string[]> {
  await sleep(200);
  return server
    .logs()
    .split('\n')
    .filter((line) => line.includes('"msg":"request"') && line.includes(fragment));
}

test("Connect's secrets sent in a URL by mistake are logged redacted: a client secret, a code, a verifier", async () => {
  const secret = `mxa_${'Q7'.repeat(20)}abc123456`;
  const code = 'c0deC0deC0deC0deC0deC0deC0deC0deC0deC0deC0d';
  const path = `/oauth/token?client_secret=${secret}&code=${code}&code_verifier=${code}v`;
  assert.equal((await request(server, { path })).status, 405, 'the token endpoint takes a POST');
  const lines = await requestLinesWith('/oauth/token?');
  assert.equal(lines.length, 1, 'the request is logged');
  assert.ok(lines[0]?.includes('code=[redacted]'), lines[0]);
  assert.ok(!server.logs().includes(code), 'no code is logged');
  assert.ok(!server.logs().includes(secret.slice(4, 20)), 'no client secret is logged');
});

test('a request refused before any route is logged, its key redacted', async () => {
  const stray = generateApiKey();
  const path = `/v1/meals/%ZZ/${stray.replace('_', '%5F')}`;
  assertError(await request(server, { path }), 400, 'bad_request', { param: null });
  const lines = await requestLinesWith('/v1/meals/%ZZ/');
  assert.equal(lines.length, 1, 'the request is logged');
  assert.ok(lines[0]?.includes('mxk_[redacted]'), lines[0]);
  assert.ok(!server.logs().includes(stray.slice(4)), 'the key is not logged');
});
