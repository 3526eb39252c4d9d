import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildHostOpenApiDocument } from '../../src/host-api/host-openapi.js';
import { issueServiceToken } from '../../src/keys/issue-service-token.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { PACKAGE_VERSION } from '../../src/version.js';
import {
  type AnswerChecker,
  type AnswerPlace,
  type CheckedAnswer,
  createAnswerChecker,
} from '../http/openapi-answer-check.js';
import { parseRawResponse } from '../http/tls-client.js';
import {
  makeMeal,
  newUserId,
  rawTlsRequest,
  request,
  startTestServer,
  type TestResponse,
  type TestServer,
} from '../support/server.js';

// Every case the host API's OpenAPI document describes, sent to the running service's host
// listener over TLS, and its answer checked against the document it serves at
// /host/v1/openapi.json (http/openapi-answer-check.ts): the status, every header (described,
// required, matching its schema) and the body. A 500 is a bug and never provoked; a 503 of the
// store down is the public listener's rule, checked there.

let server: TestServer;
let hostApi: { host: string; port: number };
let store: Storage;
let checker: AnswerChecker;
let token: string;
let paths: Record<string, { description: string }>;

const MEAL = '/host/v1/users/{userId}/meals/{mealId}';
const IMPORT = '/host/v1/users/{userId}/meals/import';
const KEYS = '/host/v1/users/{userId}/keys';
const WEBHOOKS = '/host/v1/users/{userId}/webhooks';
const JSON_TYPE = { 'content-type': 'application/json' };
const NDJSON_TYPE = { 'content-type': 'application/x-ndjson' };

interface Sent {
  readonly method?: string;
  readonly path: string;
  /** The service token by default; null for none, or another credential. */
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

function expectDocumented(place: AnswerPlace, method: string, res: CheckedAnswer, status: number, label: string) {
  assert.equal(res.status, status, `[${label}] status: ${res.text.slice(0, 300)}`);
  assert.deepEqual(checker.problems(place, method, res), [], `[${label}] the answer matches the document`);
}

/** Sends `sent` to the host API and checks the answer, documented at `path` (or without an operation). */
async function check(path: string | 'without-operation', sent: Sent, status: number, label: string) {
  const method = sent.method ?? 'GET';
  const credential = sent.token === undefined ? token : sent.token;
  const res = await request(hostApi, {
    method,
    path: sent.path,
    ...(credential === null ? {} : { key: credential }),
    ...(sent.headers === undefined ? {} : { headers: sent.headers }),
    body: sent.body,
  });
  expectDocumented(path === 'without-operation' ? path : { method, path }, method, res, status, label);
  return res;
}

const json = (value: unknown) => JSON.stringify(value);
/** A meal record for PUT: the import record without its id. */
function record(overrides: Record<string, unknown> = {}): string {
  const { id: _id, ...fields } = makeMeal(undefined, overrides);
  return json(fields);
}
const put = (user: string, id: string, body: string) => ({
  method: 'PUT',
  path: `/host/v1/users/${user}/meals/${id}`,
  headers: JSON_TYPE,
  body,
});
const field = (res: TestResponse, name: string) => (res.json as Record<string, unknown>)[name];
/** A meal id no other case uses: ids are unique across users. */
const newMealId = () => newUserId('meal');

before(async () => {
  server = await startTestServer({ hostApiPort: 0 });
  assert.ok(server.hostApi, 'the host API listens');
  hostApi = server.hostApi;
  store = await openStorage(server.db);
  const issued = await issueServiceToken(store.serviceTokens, 'openapi conformance', Date.now());
  assert.ok(issued.ok);
  token = issued.token;
  const served = await request(hostApi, { path: '/host/v1/openapi.json' });
  assert.equal(served.status, 200);
  // The linted document (host-openapi-lint.test.ts) is the one served.
  assert.equal(served.text, JSON.stringify(buildHostOpenApiDocument(PACKAGE_VERSION)));
  const document = served.json as Record<string, unknown>;
  paths = document['paths'] as typeof paths;
  checker = createAnswerChecker(document);
});

after(async () => {
  await store?.close();
  await server?.stop();
});

describe('meals: PUT, GET, HEAD and DELETE answer as the document describes', () => {
  test('PUT: 200 created, unchanged, updated and stale', async () => {
    const [user, id] = [newUserId('host-openapi'), newMealId()];
    const first = record();
    assert.equal(field(await check(MEAL, put(user, id, first), 200, 'created'), 'outcome'), 'created');
    assert.equal(field(await check(MEAL, put(user, id, first), 200, 'unchanged'), 'outcome'), 'unchanged');
    await check(MEAL, put(user, id, record({ sourceVersion: 6 })), 200, 'updated');
    const stale = await check(MEAL, put(user, id, record({ sourceVersion: 4 })), 200, 'stale');
    assert.equal(field(stale, 'outcome'), 'stale');
    // Percent-decoded: %2F is a slash of the id.
    assert.equal(field(await check(MEAL, put(user, `${id}%2Fb`, record()), 200, '%2F'), 'id'), `${id}/b`);
  });

  test('PUT: 400, 409, 413 and 422', async () => {
    const user = newUserId('host-openapi');
    const taken = newMealId();
    await check(MEAL, put('%01', 'm1', record()), 400, 'userId with a control character');
    await check(MEAL, put(user, 'm%7F', record()), 400, 'mealId with a control character');
    await check(MEAL, { ...put(user, 'm1', record()), path: `/host/v1/users/${user}/meals/m1?limit=1` }, 400, 'query');
    await check(MEAL, put(user, 'm1', '{"type":'), 400, 'not JSON');
    await check(MEAL, { ...put(user, 'm1', record()), headers: { 'content-type': 'text/plain' } }, 400, 'text/plain');
    await check(MEAL, { method: 'PUT', path: `/host/v1/users/${user}/meals/m1` }, 400, 'no body');
    await check(
      MEAL,
      put(user, 'm1', json({ type: 'lunch', date: '2025-01-01', title: 'a'.repeat(1100 * 1024) })),
      413,
      '>1 MiB',
    );
    await check(MEAL, put(user, 'm1', record({ type: 'brunch' })), 422, 'bad type');
    await check(MEAL, put(user, 'm1', record({ calories: 1 })), 422, 'unknown field');
    await check(MEAL, put(user, 'm1', record({ sourceVersion: -1 })), 422, 'bad sourceVersion');
    await check(MEAL, put(user, 'm1', '[1]'), 422, 'not an object');
    await check(MEAL, put(user, taken, record()), 200, 'the first owner');
    const refused = await check(MEAL, put(newUserId('host-openapi'), taken, record()), 409, 'id_taken');
    assert.equal((refused.json as { error: { code: string } }).error.code, 'id_taken');
  });

  test('GET and HEAD: 200 live and deleted, 400 and 404; DELETE: 200, 400, 404 and 409', async () => {
    const [user, id] = [newUserId('host-openapi'), newMealId()];
    const at = `/host/v1/users/${user}/meals/${id}`;
    await check(MEAL, put(user, id, record({ sourceVersion: 1 })), 200, 'saved');
    await check(MEAL, { path: at }, 200, 'GET live');
    await check(MEAL, { method: 'HEAD', path: at }, 200, 'HEAD live');
    await check(MEAL, { path: `${at}?x=1` }, 400, 'GET with a query');
    await check(MEAL, { path: `/host/v1/users/${user}/meals/none` }, 404, 'GET unknown');
    await check(MEAL, { method: 'HEAD', path: `/host/v1/users/${user}/meals/none` }, 404, 'HEAD unknown');
    await check(MEAL, { method: 'DELETE', path: `${at}?sourceVersion=abc` }, 400, 'bad sourceVersion');
    await check(MEAL, { method: 'DELETE', path: `${at}?version=2` }, 400, 'unknown parameter');
    const foreign = `/host/v1/users/${newUserId('x')}/meals/${id}`;
    await check(MEAL, { method: 'DELETE', path: foreign }, 404, "another user's, without a version");
    await check(MEAL, { method: 'DELETE', path: `${foreign}?sourceVersion=9` }, 409, "another user's, with a version");
    await check(MEAL, { method: 'DELETE', path: `/host/v1/users/${user}/meals/none` }, 404, 'unknown');
    const deleted = await check(MEAL, { method: 'DELETE', path: `${at}?sourceVersion=2` }, 200, 'deleted');
    assert.equal(field(deleted, 'outcome'), 'deleted');
    await check(MEAL, { method: 'DELETE', path: at }, 200, 'deleted again');
    await check(MEAL, { method: 'DELETE', path: `${at}?sourceVersion=1` }, 200, 'stale');
    const tombstone = await check(MEAL, { path: at }, 200, 'GET tombstone');
    assert.equal(field(tombstone, 'deleted'), true);
    const unknown = `/host/v1/users/${user}/meals/${newMealId()}?sourceVersion=3`;
    await check(MEAL, { method: 'DELETE', path: unknown }, 200, 'an id no user has, with a version');
  });
});

describe('meals: the import answers as the document describes', () => {
  const importOf = (user: string, lines: readonly unknown[]) => ({
    method: 'POST',
    path: `/host/v1/users/${user}/meals/import`,
    headers: NDJSON_TYPE,
    body: lines.map((line) => (typeof line === 'string' ? line : json(line))).join('\n'),
  });

  test('200, and 400, 409, 413 and 422 with the line at fault', async () => {
    const user = newUserId('host-openapi-import');
    const meals = [makeMeal(undefined, { sourceVersion: 1 }), makeMeal()];
    await check(IMPORT, importOf(user, meals), 200, 'imported');
    await check(IMPORT, { ...importOf(user, meals), headers: { 'content-type': 'application/jsonl' } }, 200, 'jsonl');
    await check(IMPORT, { ...importOf(user, meals), headers: JSON_TYPE }, 400, 'sent as JSON');
    await check(IMPORT, { ...importOf(user, meals), path: `/host/v1/users/${user}/meals/import?dry=1` }, 400, 'query');
    const bad = await check(IMPORT, importOf(user, [makeMeal(), { type: 'lunch' }]), 422, 'no id');
    assert.equal((bad.json as { error: { line: number } }).error.line, 2);
    await check(IMPORT, importOf(user, [makeMeal(), '{"id":']), 422, 'not JSON');
    const foreign = await check(IMPORT, importOf(newUserId('x'), [meals[0]]), 409, 'id_taken');
    assert.equal((foreign.json as { error: { line: number } }).error.line, 1);
    // Refused on its declared length before a byte of it is read.
    const head = `POST /host/v1/users/${user}/meals/import HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${64 * 1024 * 1024 + 1}\r\n\r\n{}`;
    const tooLarge = parseRawResponse(await rawTlsRequest(hostApi, head));
    expectDocumented({ method: 'POST', path: IMPORT }, 'POST', tooLarge, 413, 'over 64 MiB');
  });
});

describe('keys and sign-in links answer as the document describes', () => {
  test('POST, GET, HEAD and DELETE: 200 and 201, 400, 404, 409 and 422', async () => {
    const user = newUserId('host-openapi-keys');
    const path = `/host/v1/users/${user}/keys`;
    const key = await check(
      KEYS,
      { method: 'POST', path, headers: JSON_TYPE, body: '{"name":"a","expiresIn":"30d"}' },
      201,
      'named',
    );
    await check(KEYS, { method: 'POST', path }, 201, 'no body');
    await check(KEYS, { method: 'POST', path, headers: JSON_TYPE, body: '{"expiresIn":"soon"}' }, 422, 'expiresIn');
    await check(KEYS, { method: 'POST', path, headers: JSON_TYPE, body: '{"scope":"all"}' }, 422, 'unknown field');
    await check(KEYS, { method: 'POST', path, headers: JSON_TYPE, body: '{' }, 400, 'not JSON');
    await check(KEYS, { path }, 200, 'list');
    await check(KEYS, { method: 'HEAD', path }, 200, 'HEAD list');
    await check(KEYS, { path: `${path}?all=1` }, 400, 'query');
    for (let i = 2; i < 10; i += 1) await check(KEYS, { method: 'POST', path }, 201, `key ${i + 1}`);
    await check(KEYS, { method: 'POST', path }, 409, 'too_many_keys');
    const revoke = { method: 'DELETE', path: `/host/v1/keys/${String(field(key, 'id'))}` };
    await check('/host/v1/keys/{keyId}', revoke, 200, 'revoked');
    await check('/host/v1/keys/{keyId}', { method: 'DELETE', path: '/host/v1/keys/key_none' }, 404, 'unknown');
  });

  test('POST login-links: 503 while no app page address is known, then 201; 422', async () => {
    const path = `/host/v1/users/${newUserId('host-openapi-link')}/login-links`;
    const place = '/host/v1/users/{userId}/login-links';
    await check(place, { method: 'POST', path }, 503, 'no app page');
    await store.settings.recordAppPageOrigin('https://meals.diet.example');
    await check(place, { method: 'POST', path }, 201, 'link');
    await check(place, { method: 'POST', path, headers: JSON_TYPE, body: '{"ttl":60}' }, 422, 'a field');
  });
});

describe('webhook endpoints answer as the document describes', () => {
  test('POST and GET: 200 and 201, 409 and 422; each action: 200 and 404', async () => {
    const user = newUserId('host-openapi-webhooks');
    const path = `/host/v1/users/${user}/webhooks`;
    const create = (body: unknown) => ({ method: 'POST', path, headers: JSON_TYPE, body: json(body) });
    const created = await check(WEBHOOKS, create({ url: 'https://hooks.diet.example/x', name: 'n' }), 201, 'created');
    await check(WEBHOOKS, create({ url: 'http://hooks.diet.example/x' }), 422, 'not https');
    await check(WEBHOOKS, create({ name: 'n' }), 422, 'no url');
    await check(WEBHOOKS, { path }, 200, 'list');
    await check(WEBHOOKS, { method: 'HEAD', path }, 200, 'HEAD list');
    for (let i = 1; i < 5; i += 1)
      await check(WEBHOOKS, create({ url: `https://h${i}.diet.example/` }), 201, `${i + 1}`);
    await check(WEBHOOKS, create({ url: 'https://h6.diet.example/' }), 409, 'too_many_webhooks');
    const id = String(field(created, 'id'));
    for (const action of ['enable', 'rotate-secret', 'test']) {
      const place = `/host/v1/webhooks/{webhookId}/${action}`;
      await check(place, { method: 'POST', path: `/host/v1/webhooks/${id}/${action}` }, 200, action);
      await check(place, { method: 'POST', path: `/host/v1/webhooks/wh_none/${action}` }, 404, `${action} unknown`);
    }
    const attempts = '/host/v1/webhooks/{webhookId}/attempts';
    await check(attempts, { path: `/host/v1/webhooks/${id}/attempts` }, 200, 'attempts');
    await check(attempts, { method: 'HEAD', path: `/host/v1/webhooks/${id}/attempts` }, 200, 'HEAD attempts');
    await check(attempts, { path: '/host/v1/webhooks/wh_none/attempts' }, 404, 'attempts unknown');
    await check('/host/v1/webhooks/{webhookId}', { method: 'DELETE', path: `/host/v1/webhooks/${id}` }, 200, 'deleted');
    await check('/host/v1/webhooks/{webhookId}', { method: 'DELETE', path: `/host/v1/webhooks/${id}` }, 404, 'gone');
  });
});

describe('the refusals of every request answer as the document describes', () => {
  const at = () => `/host/v1/users/${newUserId('host-openapi')}/keys`;

  test('401 without a token, with a bad one and with an API key; 403 with an Origin; 414 and 431', async () => {
    await check(KEYS, { path: at(), token: null }, 401, 'missing_token');
    await check(KEYS, { path: at(), token: `mxs_${'0'.repeat(49)}` }, 401, 'invalid_token');
    const apiKey = await check(KEYS, { method: 'POST', path: at() }, 201, 'an API key');
    await check(KEYS, { path: at(), token: String(field(apiKey, 'key')) }, 401, 'an API key is no token');
    await check(KEYS, { path: at(), headers: { origin: 'https://app.example' } }, 403, 'Origin');
    await check(KEYS, { path: `${at()}?x=${'a'.repeat(17 * 1024)}` }, 414, 'URL');
    await check(KEYS, { path: at(), headers: { 'x-pad': 'a'.repeat(17 * 1024) } }, 431, 'headers');
  });

  test('GET and HEAD /host/v1/openapi.json need no token; 403 with an Origin', async () => {
    const path = '/host/v1/openapi.json';
    await check(path, { path, token: null }, 200, 'GET');
    await check(path, { method: 'HEAD', path, token: null }, 200, 'HEAD');
    await check(path, { path, token: null, headers: { origin: 'https://app.example' } }, 403, 'Origin');
  });
});

describe('the answers to requests no operation describes are those under x-responses-without-operation', () => {
  test('405 on every path with the Allow its description names; 404, 403 for OPTIONS, 400', async () => {
    const ids: Record<string, string> = { userId: 'u', mealId: 'm', keyId: 'k', webhookId: 'w' };
    for (const [template, item] of Object.entries(paths)) {
      const path = template.replace(/\{(\w+)\}/g, (_all, name: string) => ids[name] ?? name);
      const res = await check('without-operation', { method: 'PATCH', path, token: null }, 405, `PATCH ${path}`);
      assert.equal(res.headers['allow'], /Allow: ([A-Z, ]+) \(/.exec(item.description)?.[1], `Allow of ${template}`);
    }
    await check('without-operation', { path: '/host/v2/users/u/keys' }, 404, 'another path');
    await check('without-operation', { path: '/v1/meals' }, 404, 'a public path');
    await check('without-operation', { method: 'OPTIONS', path: '/nowhere', token: null }, 403, 'OPTIONS');
    await check('without-operation', { path: '/host/v1/users/%zz/keys' }, 400, 'a path that does not decode');
    const badHeader = parseRawResponse(
      await rawTlsRequest(hostApi, 'GET /host/v1/openapi.json HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'),
    );
    expectDocumented('without-operation', 'GET', badHeader, 400, 'a header name with a space');
  });
});

describe('the guard against failed authentications answers as the document describes', () => {
  test('429 with Retry-After once an address has failed too often; a valid token still passes', async () => {
    const path = `/host/v1/users/${newUserId('host-openapi')}/keys`;
    let res: TestResponse | undefined;
    for (let i = 0; i < 25; i += 1) {
      res = await request(hostApi, { path, key: `mxs_${'1'.repeat(49)}` });
      if (res.status === 429) break;
      expectDocumented({ method: 'GET', path: KEYS }, 'GET', res, 401, `failed authentication ${i + 1}`);
    }
    assert.ok(res);
    expectDocumented({ method: 'GET', path: KEYS }, 'GET', res, 429, 'blocked address');
    await check(KEYS, { path }, 200, 'a valid token while blocked');
  });
});
