import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateApiKey } from '../../src/domain/api-key.js';
import { cliJson } from '../support/cli.js';
import { makeTempDir } from '../support/project.js';
import {
  getMeals,
  makeMeal,
  newUserId,
  rawTlsRequest,
  request,
  startTestServer,
  type TestResponse,
  type TestServer,
} from '../support/server.js';
import { assertCommonHeaders, assertError, assertPage, OLD, sleep, WWW_AUTHENTICATE } from './http-expect.js';
import { parseRawResponse, requestFrom, tlsHandshake } from './tls-client.js';

// `server` answers most cases; failed authentications on it stay under the brute-force
// threshold (20 a minute from one address): this file makes 12 there. `guarded` is for the
// brute-force case and allows one request per key a day, for a cheap 429.
let server: TestServer;
let guarded: TestServer;
/** Every key this file sends, to check that none reaches the logs. */
const sentKeys: string[] = [];

before(async () => {
  [server, guarded] = await Promise.all([startTestServer(), startTestServer({ dailyLimit: 1 })]);
});

after(async () => {
  await Promise.all([server.stop(), guarded.stop()]);
});

async function keyFor(target: TestServer, userId = newUserId(), extra: readonly string[] = []) {
  const created = await target.createKey(userId, extra);
  sentKeys.push(created.key);
  return { userId, ...created };
}

const MEALS = `/v1/meals?lastModifiedSince=${OLD}`;
const INVALID = 'Invalid API key.';
const MISSING = 'Missing API key.';

function assertUnauthorized(res: TestResponse, code: 'missing_api_key' | 'invalid_api_key', label: string): void {
  const message = code === 'missing_api_key' ? MISSING : INVALID;
  assertError(res, 401, code, { param: null, message, label });
  assert.equal(res.headers['www-authenticate'], WWW_AUTHENTICATE, `WWW-Authenticate [${label}]`);
}

test('every kind of answer is JSON with Cache-Control, nosniff and HSTS, without X-Powered-By or any CORS header', async () => {
  const { key, userId } = await keyFor(server);
  const gone = makeMeal();
  await server.importMeals(userId, [makeMeal(), gone]);
  // A pruned tombstone: includeDeleted from before it is 410.
  await server.deleteMeal(userId, String(gone.id));
  await server.pruneTombstones(0);
  const daily = await keyFor(guarded);
  await getMeals(guarded, daily.key, { lastModifiedSince: OLD });
  const cors = { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' };
  const cases: [label: string, res: TestResponse, status: number][] = [
    ['200 meals', await request(server, { path: MEALS, key }), 200],
    ['200 healthz', await request(server, { path: '/healthz' }), 200],
    ['400', await request(server, { path: '/v1/meals?limit=0', key }), 400],
    ['401', await request(server, { path: MEALS }), 401],
    ['403 OPTIONS', await request(server, { method: 'OPTIONS', path: MEALS, key, headers: cors }), 403],
    ['403 Origin', await request(server, { path: MEALS, key, headers: { Origin: 'null' } }), 403],
    ['404', await request(server, { path: '/v2/meals', key, headers: cors }), 404],
    ['405', await request(server, { method: 'DELETE', path: MEALS, key }), 405],
    ['410', await request(server, { path: `${MEALS}&includeDeleted=true`, key }), 410],
    ['414', await request(server, { path: `${MEALS}&x=${'a'.repeat(9000)}`, key }), 414],
    ['431', await request(server, { path: MEALS, key, headers: { 'x-pad': 'a'.repeat(17 * 1024) } }), 431],
    ['429', await getMeals(guarded, daily.key, { lastModifiedSince: OLD }), 429],
  ];
  for (const [label, res, status] of cases) {
    assert.equal(res.status, status, `[${label}] HTTP ${res.status} ${res.text.slice(0, 200)}`);
    assertCommonHeaders(res, label);
    assert.notEqual(res.json, undefined, `[${label}] the body is JSON`);
  }
});

test('OPTIONS is 403 browser_forbidden on any path, with or without a valid key; only an oversized request is refused before it', async () => {
  const { key } = await keyFor(server);
  for (const path of ['/nope', '/v2/meals', MEALS, '/v1/meals?limit=0']) {
    const res = await request(server, { method: 'OPTIONS', path, key });
    assertError(res, 403, 'browser_forbidden', { param: null, label: `OPTIONS ${path}` });
  }
  const asterisk = parseRawResponse(
    await rawTlsRequest(server, 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
  );
  assert.equal(asterisk.status, 403, `OPTIONS *: ${asterisk.text}`);
  assert.equal((asterisk.json as { error: { code: string } }).error.code, 'browser_forbidden');

  const long = await request(server, { method: 'OPTIONS', path: `/nope?x=${'a'.repeat(9000)}` });
  assertError(long, 414, 'request_too_large', { param: null });
});

test('an Origin header is 403 whatever the key, after the route and method checks, and uses none of the key quota', async () => {
  const origin = { Origin: 'https://app.example' };
  const { key } = await keyFor(guarded); // one request a day
  const cases: [label: string, res: TestResponse, status: number, code: string][] = [
    ['valid key', await request(guarded, { path: MEALS, key, headers: origin }), 403, 'browser_forbidden'],
    [
      'Origin: null',
      await request(guarded, { path: MEALS, key, headers: { Origin: 'null' } }),
      403,
      'browser_forbidden',
    ],
    ['unknown path', await request(guarded, { path: '/v1/meal', key, headers: origin }), 404, 'not_found'],
    ['PUT', await request(guarded, { method: 'PUT', path: MEALS, key, headers: origin }), 405, 'method_not_allowed'],
  ];
  for (const [label, res, status, code] of cases) assertError(res, status, code, { param: null, label });
  assertPage(await request(guarded, { path: MEALS, key }));
});

test('only /v1/meals is the API: near misses are 404 not_found, with or without a key and for any method', async () => {
  const { key } = await keyFor(server);
  const paths = ['/v2/meals', '/v1/meal', '/v1/meals/', '/V1/meals', '/v1/MEALS', '/v1/meals/abc', '/v1//meals'];
  paths.push('/v1/meals.json', '/healthz/', '/metrics', '/', '/v1', '/v1/openapi.yaml');
  for (const path of paths) {
    assertError(await request(server, { path, key }), 404, 'not_found', { param: null, label: path });
  }
  assertError(await request(server, { path: '/v1/meals/' }), 404, 'not_found', { label: 'no key' });
  assertError(await request(server, { method: 'POST', path: '/v1/meal', key }), 404, 'not_found', { label: 'POST' });
  const head = await request(server, { method: 'HEAD', path: '/v2/meals', key });
  assert.equal(head.status, 404);
  assert.equal(head.raw.length, 0);
});

test('POST, PUT, PATCH and DELETE on /v1/meals are 405 with Allow: GET, HEAD, before the key is looked at', async () => {
  const { key } = await keyFor(server);
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    for (const [label, auth] of [
      ['valid key', key],
      ['no key', undefined],
    ] as const) {
      const res = await request(server, { method, path: MEALS, ...(auth === undefined ? {} : { key: auth }) });
      assertError(res, 405, 'method_not_allowed', { param: null, label: `${method} ${label}` });
      assert.equal(res.headers.allow, 'GET, HEAD');
    }
  }
});

test('401 answers say exactly "Missing API key." or "Invalid API key." with WWW-Authenticate: Bearer realm="meal-export"', async () => {
  const { key } = await keyFor(server);
  const unknownButWellFormed = generateApiKey();
  sentKeys.push(unknownButWellFormed);
  const badChecksum = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
  const cases: [authorization: string, code: 'missing_api_key' | 'invalid_api_key'][] = [
    ['Bearer', 'missing_api_key'],
    ['Bearer    ', 'missing_api_key'],
    [`Basic ${Buffer.from(`user:${key}`).toString('base64')}`, 'invalid_api_key'],
    [`Token ${key}`, 'invalid_api_key'],
    [key, 'invalid_api_key'],
    [`Bearer ${unknownButWellFormed}`, 'invalid_api_key'],
    [`Bearer ${badChecksum}`, 'invalid_api_key'],
    [`Bearer ${key.toLowerCase()}`, 'invalid_api_key'],
  ];
  for (const [authorization, code] of cases) {
    const res = await request(server, { path: MEALS, headers: { authorization } });
    assertUnauthorized(res, code, authorization.slice(0, 20));
  }
});

test('the Bearer scheme is case-insensitive', async () => {
  const { key, userId } = await keyFor(server);
  for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
    const res = await request(server, { path: MEALS, headers: { authorization: `${scheme} ${key}` } });
    assertPage(res, userId);
  }
});

test('a revoked key is refused within 1.1 s while the user’s other key keeps working', async () => {
  const old = await keyFor(server);
  const fresh = await keyFor(server, old.userId);
  assertPage(await request(server, { path: MEALS, key: old.key }), old.userId);
  await cliJson(['keys', 'revoke', old.id, '--db', server.db]);
  await sleep(1100);
  assertUnauthorized(await request(server, { path: MEALS, key: old.key }), 'invalid_api_key', 'revoked');
  assertPage(await request(server, { path: MEALS, key: fresh.key }), old.userId);
});

test('a key created with --expires-in 2s works until it expires and is refused after', async () => {
  const created = (await keyFor(server, newUserId(), ['--expires-in', '2s'])) as unknown as {
    key: string;
    userId: string;
    createdAt: string;
    expiresAt: string;
  };
  assert.equal(Date.parse(created.expiresAt) - Date.parse(created.createdAt), 2000, 'expiresAt is createdAt + 2 s');
  assertPage(await request(server, { path: MEALS, key: created.key }), created.userId);
  await sleep(Math.max(0, Date.parse(created.expiresAt) - Date.now()) + 100);
  assertUnauthorized(await request(server, { path: MEALS, key: created.key }), 'invalid_api_key', 'expired');
});

test('a URL over 8 KiB is 414 and headers over 16 KiB are 431 request_too_large, 70 KiB headers included', async () => {
  const { key } = await keyFor(server);
  const pathOf = (length: number) => {
    const base = `${MEALS}&x=`;
    return `${base}${'a'.repeat(length - base.length)}`;
  };
  const atLimit = await request(server, { path: pathOf(8192), key });
  assertError(atLimit, 400, 'invalid_parameter', { param: 'x', label: 'an 8192-byte URL is not too large' });
  for (const length of [8193, 9000, 60 * 1024]) {
    assertError(await request(server, { path: pathOf(length), key }), 414, 'request_too_large', {
      param: null,
      label: `URL of ${length} bytes`,
    });
  }
  assertPage(await request(server, { path: MEALS, key, headers: { 'x-pad': 'a'.repeat(15 * 1024) } }));
  const manySmall = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`x-pad-${i}`, 'b'.repeat(90)]));
  for (const [label, headers] of [
    ['one 17 KiB header', { 'x-pad': 'a'.repeat(17 * 1024) }],
    ['200 headers of 100 bytes', manySmall],
    ['one 70 KiB header', { 'x-pad': 'a'.repeat(70 * 1024) }],
  ] as const) {
    const res = await request(server, { path: MEALS, key, headers });
    assertError(res, 431, 'request_too_large', { param: null, label });
  }
});

test('a URL of 70 KiB, past the HTTP parser’s own limit, is still 414 (not 431)', async () => {
  const { key } = await keyFor(server);
  const res = await request(server, { path: `${MEALS}&x=${'a'.repeat(70 * 1024)}`, key });
  assertError(res, 414, 'request_too_large', { param: null });
});

test('bytes the HTTP parser refuses get 400 bad_request as JSON with the common headers', async () => {
  const payloads = [
    'GET /v1/meals HTTP/1.1\r\nHost: x\r\nThis is not a header\r\n\r\n',
    'NOT-HTTP\r\n\r\n',
    'GET /v1/me\u0000als HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
    'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n',
  ];
  for (const payload of payloads) {
    const label = JSON.stringify(payload.slice(0, 40));
    const res = parseRawResponse(await rawTlsRequest(server, payload));
    assert.equal(res.status, 400, `${label}: ${res.text}`);
    assert.equal((res.json as { error: { code: string } } | undefined)?.error.code, 'bad_request', label);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', label);
    assert.equal(res.headers['cache-control'], 'no-store', label);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', label);
    assert.equal(res.headers['strict-transport-security'], 'max-age=31536000', label);
  }
});

test('after 20 failed authentications from one address in a minute it gets 429 with Retry-After, while a valid key and other addresses still pass', async () => {
  for (let i = 0; i < 20; i += 1) {
    const res = await request(guarded, { path: MEALS, ...(i % 2 === 0 ? {} : { key: generateApiKey() }) });
    assert.equal(res.status, 401, `failure ${i + 1} is still a 401`);
  }
  for (const [label, headers] of [
    ['no key', {}],
    ['unknown key', { authorization: `Bearer ${generateApiKey()}` }],
    ['another scheme', { authorization: 'Basic abc' }],
  ] as const) {
    const res = await request(guarded, { path: MEALS, headers });
    assertError(res, 429, 'rate_limited', { param: null, label });
    const retryAfter = String(res.headers['retry-after']);
    assert.match(retryAfter, /^\d+$/, label);
    assert.ok(Number(retryAfter) >= 50 && Number(retryAfter) <= 60, `Retry-After ${retryAfter} [${label}]`);
  }
  const { key, userId } = await keyFor(guarded);
  assertPage(await request(guarded, { path: MEALS, key }), userId);
  const elsewhere = await requestFrom(guarded, '127.0.0.2', MEALS);
  assert.equal(elsewhere.status, 401, 'another client address is not blocked');
});

test('the listening line is the only line on stdout', () => {
  assert.equal(server.stdout(), `listening on https://127.0.0.1:${server.port}\n`);
});

test('TLS 1.2 and 1.3 are accepted and TLS 1.1 is refused', async () => {
  for (const version of ['TLSv1.2', 'TLSv1.3'] as const) {
    const result = await tlsHandshake(server, version);
    assert.ok(result.ok, `${version}: ${result.ok ? '' : result.code}`);
    assert.equal(result.handshake.protocol, version);
  }
  const old = await tlsHandshake(server, 'TLSv1.1');
  assert.equal(old.ok, false, 'TLS 1.1 must be refused');
  // The server's protocol_version alert, not the client declining to offer TLS 1.1.
  if (!old.ok) assert.match(old.code, /ALERT_PROTOCOL_VERSION/);
});

test('the self-signed certificate names localhost, 127.0.0.1 and ::1, is logged by its fingerprint, and is reused after a restart; SIGTERM exits 0', async () => {
  const { dir, remove } = makeTempDir('cert-reuse');
  try {
    const first = await startTestServer({ dataDir: dir });
    const before = await tlsHandshake(first, 'TLSv1.3');
    assert.equal(await first.stop(), 0, 'SIGTERM: exit code 0');
    const second = await startTestServer({ dataDir: dir });
    const after = await tlsHandshake(second, 'TLSv1.3');
    assert.equal(await second.stop(), 0, 'SIGTERM: exit code 0');
    assert.ok(before.ok && after.ok);
    assert.equal(after.handshake.fingerprint256, before.handshake.fingerprint256, 'the same certificate');
    assert.match(before.handshake.fingerprint256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    for (const logs of [first.logs(), second.logs()]) {
      assert.ok(logs.includes(before.handshake.fingerprint256), 'the fingerprint is logged as uppercase hex pairs');
    }
    for (const name of ['DNS:localhost', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1']) {
      assert.ok(before.handshake.subjectAltName.includes(name), `${name} in ${before.handshake.subjectAltName}`);
    }
  } finally {
    remove();
  }
});

/** The logs of both servers once the last responses have been logged. */
async function allLogs(): Promise<string> {
  await sleep(200); // a request is logged after its response is sent
  return `${server.logs()}\n${guarded.logs()}`;
}

/** The key's secret part (after "mxk_") must not appear in the logs in any form. */
function assertNotLogged(logs: string, keys: readonly string[]): void {
  for (const sent of keys) assert.ok(!logs.includes(sent.slice(4)), `a key (${sent.slice(0, 8)}…) appears in the logs`);
}

/** The request lines logged with a key redacted in their URL: proof the requests were logged at all. */
function redactedRequestLines(logs: string): number {
  return logs.split('\n').filter((line) => line.includes('"msg":"request"') && line.includes('mxk_[redacted]')).length;
}

test('no API key ever reaches the logs, not even a valid one sent in the query string or in the path', async () => {
  const { key } = await keyFor(server);
  const before = redactedRequestLines(await allLogs());
  const inQuery = await request(server, { path: `${MEALS}&api_key=${key}` });
  assertUnauthorized(inQuery, 'missing_api_key', 'key in the query string only');
  assertError(await request(server, { path: `${MEALS}&api_key=${key}`, key }), 400, 'invalid_parameter');
  assertError(await request(server, { path: `/v1/${key}`, key }), 404, 'not_found');
  const logs = await allLogs();
  assert.equal(redactedRequestLines(logs) - before, 3, 'each request is logged, its key redacted');
  assertNotLogged(logs, sentKeys);
});

test('a key sent percent-encoded in the query string (mxk%5F...) does not reach the logs, even beside a malformed escape', async () => {
  const { key } = await keyFor(server);
  const encoded = key.replace('_', '%5F');
  const before = redactedRequestLines(await allLogs());
  const paths = [
    `${MEALS}&api_key=${encoded}`,
    `${MEALS}&x=%ZZ&api_key=${encoded}`,
    `${MEALS}&api_key=${encoded.replace('%5F', '%255F')}&y=%E0%A4%A`,
  ];
  for (const path of paths) assert.equal((await request(server, { path, key })).status >= 400, true, path);
  const logs = await allLogs();
  assert.equal(redactedRequestLines(logs) - before, paths.length, 'each request is logged, its key redacted');
  assertNotLogged(logs, [key]);
});
