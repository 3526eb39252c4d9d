import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { PACKAGE_VERSION } from '../../src/version.js';
import { makeMeal, newUserId, rawTlsRequest, request, type TestResponse, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { OLD } from './http-expect.js';
import {
  type AnswerChecker,
  type AnswerPlace,
  type CheckedAnswer,
  createAnswerChecker,
} from './openapi-answer-check.js';
import { parseRawResponse } from './tls-client.js';

// Every case the OpenAPI document describes, sent to the running service over TLS, and its
// answer checked against the document the service serves (openapi-answer-check.ts): the
// status, every header (described, required, matching its schema) and the body. An answer
// the document does not describe, or a header it leaves out, fails here. A 500 is a bug and
// never provoked; the 503s of /v1/meals and /readyz (the store down) are checked against the
// same document in test/scale-out/multi-instance.test.ts, which cuts PostgreSQL.

let server: ServedApp;
/** --daily-limit 1: the second request of a key is refused with rate_limited. */
let limited: ServedApp;
let checker: AnswerChecker;
let key: string;

const MEALS = { method: 'GET', path: '/v1/meals' } as const;
const HEAD_MEALS = { method: 'HEAD', path: '/v1/meals' } as const;
const SINCE = `lastModifiedSince=${OLD}`;

function expectDocumented(place: AnswerPlace, method: string, res: CheckedAnswer, status: number, label: string): void {
  assert.equal(res.status, status, `[${label}] status: ${res.text.slice(0, 200)}`);
  assert.deepEqual(checker.problems(place, method, res), [], `[${label}] the answer matches the document`);
}

/** Sends `options` to `target` and checks the answer, documented at `place`, has `status`. */
async function check(
  target: ServedApp,
  place: AnswerPlace,
  options: { method?: string; path: string; key?: string; headers?: Record<string, string>; body?: string },
  status: number,
  label: string,
): Promise<TestResponse> {
  const res = await request(target, options);
  expectDocumented(place, options.method ?? 'GET', res, status, label);
  return res;
}

before(async () => {
  [server, limited] = await Promise.all([startInProcessServer(), startInProcessServer({ dailyLimit: 1 })]);
  const served = await request(server, { path: '/v1/openapi.json' });
  assert.equal(served.status, 200);
  // The linted document (openapi-lint.test.ts) is the one served.
  assert.equal(served.text, JSON.stringify(buildOpenApiDocument(PACKAGE_VERSION)));
  checker = createAnswerChecker(served.json as Record<string, unknown>);
  const userId = newUserId('openapi');
  ({ key } = await server.createKey(userId));
  // Enough meals for a page over 1 KiB, which is compressed when asked.
  await server.importMeals(userId, [makeMeal(), makeMeal(), makeMeal(), makeMeal()]);
});

after(async () => {
  await Promise.all([server?.stop(), limited?.stop()]);
});

describe('GET and HEAD /v1/meals answer as the OpenAPI document describes', () => {
  test('200: a page, compressed or not, and with includeDeleted=true a tombstone', async () => {
    await check(server, MEALS, { path: `/v1/meals?${SINCE}`, key }, 200, 'page');
    const gzip = await check(
      server,
      MEALS,
      { path: `/v1/meals?${SINCE}`, key, headers: { 'accept-encoding': 'gzip' } },
      200,
      'gzip page',
    );
    assert.equal(gzip.headers['content-encoding'], 'gzip', 'the page is over 1 KiB: compressed');
    const userId = newUserId('openapi-deleted');
    const other = await server.createKey(userId);
    await server.importMeals(userId, [makeMeal('kept'), makeMeal('gone')]);
    await server.deleteMeal(userId, 'gone');
    const page = await check(
      server,
      MEALS,
      { path: `/v1/meals?${SINCE}&includeDeleted=true`, key: other.key },
      200,
      'includeDeleted',
    );
    assert.ok(JSON.stringify(page.json).includes('"deleted":true'), 'the page holds a tombstone');
  });

  test('HEAD: the headers of the GET, with and without compression, and no body', async () => {
    await check(server, HEAD_MEALS, { method: 'HEAD', path: `/v1/meals?${SINCE}`, key }, 200, 'HEAD');
    await check(
      server,
      HEAD_MEALS,
      { method: 'HEAD', path: `/v1/meals?${SINCE}`, key, headers: { 'accept-encoding': 'br' } },
      200,
      'HEAD br',
    );
    await check(server, HEAD_MEALS, { method: 'HEAD', path: `/v1/meals?${SINCE}` }, 401, 'HEAD without key');
  });

  test('400: missing_parameter, invalid_parameter, and bad_request', async () => {
    await check(server, MEALS, { path: '/v1/meals', key }, 400, 'missing_parameter');
    await check(server, MEALS, { path: `/v1/meals?${SINCE}&limit=0`, key }, 400, 'invalid_parameter');
    // An HTTP/1.1 request without Host is refused before authentication.
    const noHost = parseRawResponse(await rawTlsRequest(server, `GET /v1/meals?${SINCE} HTTP/1.1\r\n\r\n`));
    expectDocumented(MEALS, 'GET', noHost, 400, 'bad_request without Host');
    assert.equal((noHost.json as { error: { code: string } }).error.code, 'bad_request');
  });

  test('401: no key and an invalid key, each with WWW-Authenticate', async () => {
    await check(server, MEALS, { path: `/v1/meals?${SINCE}` }, 401, 'missing_api_key');
    await check(server, MEALS, { path: `/v1/meals?${SINCE}`, key: `mxk_${'0'.repeat(49)}` }, 401, 'invalid_api_key');
  });

  test('403: an Origin header, whatever the key', async () => {
    await check(
      server,
      MEALS,
      { path: `/v1/meals?${SINCE}`, key, headers: { origin: 'https://a.example' } },
      403,
      'Origin',
    );
  });

  test('410: includeDeleted=true from before a pruned tombstone', async () => {
    const userId = newUserId('openapi-pruned');
    const pruned = await server.createKey(userId);
    await server.importMeals(userId, [makeMeal('soon-gone')]);
    await server.deleteMeal(userId, 'soon-gone');
    assert.ok((await server.pruneTombstones(0)).pruned >= 1);
    await check(
      server,
      MEALS,
      { path: `/v1/meals?${SINCE}&includeDeleted=true`, key: pruned.key },
      410,
      'resync_required',
    );
  });

  test('414 and 431: a URL over 8 KiB and headers over 16 KiB', async () => {
    await check(server, MEALS, { path: `/v1/meals?${SINCE}&x=${'a'.repeat(9000)}`, key }, 414, 'URL');
    await check(
      server,
      MEALS,
      { path: `/v1/meals?${SINCE}`, key, headers: { 'x-pad': 'a'.repeat(17 * 1024) } },
      431,
      'headers',
    );
  });

  test("429: over the key's limits, with the rate-limit headers and Retry-After", async () => {
    const once = await limited.createKey(newUserId('openapi-limited'));
    await check(limited, MEALS, { path: `/v1/meals?${SINCE}`, key: once.key }, 200, 'the one request of the day');
    const refused = await check(limited, MEALS, { path: `/v1/meals?${SINCE}`, key: once.key }, 429, 'rate_limited');
    assert.ok(refused.headers['ratelimit-policy'], 'a refusal for the limits carries them');
  });

  test('429: too many failed authentications from one address, with Retry-After and no rate-limit headers', async () => {
    let res: TestResponse | undefined;
    for (let i = 0; i < 25; i += 1) {
      res = await request(limited, { path: `/v1/meals?${SINCE}`, key: `mxk_${'1'.repeat(49)}` });
      if (res.status === 429) break;
      expectDocumented(MEALS, 'GET', res, 401, `failed authentication ${i + 1}`);
    }
    assert.ok(res);
    expectDocumented(MEALS, 'GET', res, 429, 'blocked address');
    assert.equal(res.headers['ratelimit-policy'], undefined, 'no key was accepted: no rate-limit headers');
  });
});

describe('GET and HEAD /v1/key answer as the OpenAPI document describes', () => {
  const KEY = { method: 'GET', path: '/v1/key' } as const;
  const HEAD_KEY = { method: 'HEAD', path: '/v1/key' } as const;

  test('200 with GET and HEAD, 400 for a query parameter, 401 without a key or with a bad one, 403 with an Origin', async () => {
    await check(server, KEY, { path: '/v1/key', key }, 200, 'key info');
    await check(server, HEAD_KEY, { method: 'HEAD', path: '/v1/key', key }, 200, 'HEAD key info');
    await check(server, KEY, { path: '/v1/key?limit=1', key }, 400, 'a query parameter');
    await check(server, KEY, { path: '/v1/key' }, 401, 'missing_api_key');
    await check(server, KEY, { path: '/v1/key', key: `mxk_${'0'.repeat(49)}` }, 401, 'invalid_api_key');
    await check(server, KEY, { path: '/v1/key', key, headers: { origin: 'https://a.example' } }, 403, 'Origin');
  });

  test('414 and 431, and 405 with Allow among the answers without an operation', async () => {
    await check(server, KEY, { path: `/v1/key?x=${'a'.repeat(9000)}`, key }, 414, 'URL');
    await check(server, KEY, { path: '/v1/key', key, headers: { 'x-pad': 'a'.repeat(17 * 1024) } }, 431, 'headers');
    await check(server, 'without-operation', { method: 'POST', path: '/v1/key', key }, 405, 'POST');
  });

  test("200 at the key's limits (never refused for them), and 429 only for failed authentications", async () => {
    const once = await limited.createKey(newUserId('openapi-key-limited'));
    await check(limited, MEALS, { path: `/v1/meals?${SINCE}`, key: once.key }, 200, 'the one request of the day');
    await check(limited, KEY, { path: '/v1/key', key: once.key }, 200, 'key info with the day used up');
    let res: TestResponse | undefined;
    for (let i = 0; i < 25; i += 1) {
      res = await request(limited, { path: '/v1/key', key: `mxk_${'2'.repeat(49)}` });
      if (res.status === 429) break;
      expectDocumented(KEY, 'GET', res, 401, `failed authentication ${i + 1}`);
    }
    assert.ok(res);
    expectDocumented(KEY, 'GET', res, 429, 'blocked address');
  });
});

describe('the routes without a key answer as the OpenAPI document describes', () => {
  for (const path of ['/healthz', '/readyz', '/v1/openapi.json']) {
    test(`GET and HEAD ${path}: 200, and 403 with an Origin, 414 and 431`, async () => {
      await check(server, { method: 'GET', path }, { path }, 200, `GET ${path}`);
      await check(server, { method: 'HEAD', path }, { method: 'HEAD', path }, 200, `HEAD ${path}`);
      await check(server, { method: 'GET', path }, { path, headers: { origin: 'https://a.example' } }, 403, 'Origin');
      await check(server, { method: 'GET', path }, { path: `${path}?x=${'a'.repeat(9000)}` }, 414, 'URL');
      await check(
        server,
        { method: 'HEAD', path },
        { method: 'HEAD', path, headers: { 'x-pad': 'a'.repeat(17 * 1024) } },
        431,
        'headers',
      );
    });
  }

  test('GET /v1/openapi.json compressed when asked', async () => {
    const path = '/v1/openapi.json';
    const res = await check(server, { method: 'GET', path }, { path, headers: { 'accept-encoding': 'br' } }, 200, 'br');
    assert.equal(res.headers['content-encoding'], 'br');
  });
});

describe("Connect's token and revocation endpoints and metadata answer as the OpenAPI document describes", () => {
  const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
  const TOKEN = { method: 'POST', path: '/oauth/token' } as const;
  const REVOKE = { method: 'POST', path: '/oauth/revoke' } as const;
  const stranger = `Basic ${Buffer.from(`app_none:mxa_${'0'.repeat(49)}`).toString('base64')}`;

  test('POST /oauth/token: 400 for a body not a form, 401 for an unknown app', async () => {
    await check(server, TOKEN, { ...TOKEN, body: '{}', headers: { 'content-type': 'application/json' } }, 400, 'JSON');
    const exchange = new URLSearchParams({
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: 'x',
      code_verifier: 'x',
    });
    const res = await check(
      server,
      TOKEN,
      { ...TOKEN, body: exchange.toString(), headers: { ...FORM, authorization: stranger } },
      401,
      'unknown app',
    );
    assert.equal(res.headers['www-authenticate'], 'Basic realm="meal-export"');
    assert.equal((res.json as { error: string }).error, 'invalid_client');
  });

  test('POST /oauth/revoke: 400 without a form, 401 without a client', async () => {
    await check(server, REVOKE, { ...REVOKE, body: 'token', headers: { 'content-type': 'text/plain' } }, 400, 'text');
    await check(server, REVOKE, { ...REVOKE, body: 'token=mxk_x', headers: FORM }, 401, 'no client');
  });

  test('GET the metadata: 404 while the app page does not run', async () => {
    const path = '/.well-known/oauth-authorization-server';
    await check(server, { method: 'GET', path }, { path }, 404, 'no app page');
  });

  test('GET /oauth/token: 405 with Allow: POST', async () => {
    const res = await check(server, 'without-operation', { path: '/oauth/token' }, 405, 'GET');
    assert.equal(res.headers.allow, 'POST');
  });
});

describe('the answers to requests no operation describes are those under x-responses-without-operation', () => {
  const NONE = 'without-operation';

  test('404 for another path, 405 with Allow for another method, 403 for OPTIONS', async () => {
    await check(server, NONE, { path: '/v2/meals', key }, 404, 'another path');
    await check(server, NONE, { method: 'DELETE', path: '/v1/meals', key }, 405, 'DELETE');
    await check(server, NONE, { method: 'POST', path: '/healthz' }, 405, 'POST');
    await check(server, NONE, { method: 'OPTIONS', path: '/nowhere' }, 403, 'OPTIONS');
  });

  test('400, 414 and 431 from the HTTP parser, before any route is known', async () => {
    const badHeader = parseRawResponse(
      await rawTlsRequest(server, 'GET /v1/meals HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'),
    );
    expectDocumented(NONE, 'GET', badHeader, 400, 'a header name with a space');
    const longUrl = await request(server, { path: `/v1/meals?x=${'a'.repeat(70 * 1024)}` });
    expectDocumented(NONE, 'GET', longUrl, 414, 'a URL past the parser limit');
    const bigHeaders = await request(server, { path: '/v1/meals', headers: { 'x-pad': 'a'.repeat(70 * 1024) } });
    expectDocumented(NONE, 'GET', bigHeaders, 431, 'headers past the parser limit');
  });
});

describe('the checker catches what the document does not describe', () => {
  test('an undescribed header, a missing required header, a bad header value, an undescribed status and a body off its schema', async () => {
    const res = await request(server, { path: `/v1/meals?${SINCE}`, key });
    assert.equal(res.status, 200);
    const problems = (changed: Partial<CheckedAnswer>) =>
      checker.problems(MEALS, 'GET', { ...res, ...changed }).join('\n');
    assert.match(problems({ headers: { ...res.headers, 'x-new': '1' } }), /x-new is sent but not described/);
    assert.match(
      problems({ headers: { ...res.headers, 'cache-control': undefined } }),
      /required header Cache-Control/,
    );
    assert.match(problems({ headers: { ...res.headers, 'x-ratelimit-limit': 'lots' } }), /X-RateLimit-Limit/);
    assert.match(problems({ status: 418 }), /describes no 418/);
    assert.match(problems({ text: '{"ok":true}' }), /the body/);
  });
});
