import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseRawResponse } from '../http/tls-client.js';
import { newUserId, rawTlsRequest, request, type TestResponse } from '../support/server.js';
import { field, JSON_TYPE, json, KEYS, useHostConformance, WEBHOOKS } from './host-openapi-checker.js';

// Keys, sign-in links, webhook endpoints, the document itself and what every request may be
// answered, each case's answer checked against the document served (host-openapi-checker.ts);
// the meals paths are host-openapi-meals.test.ts's.

const { check, expectDocumented, hostApi, paths, store } = useHostConformance();

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
    await store().settings.recordAppPageOrigin('https://meals.diet.example');
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

describe('apps answer as the document describes', () => {
  test('POST, GET, HEAD, DELETE and rotate-secret: 200 and 201, 400, 404 and 422', async () => {
    const apps = '/host/v1/apps';
    const app = '/host/v1/apps/{appId}';
    const rotate = '/host/v1/apps/{appId}/rotate-secret';
    const create = (body: unknown) => ({ method: 'POST', path: apps, headers: JSON_TYPE, body: json(body) });
    const uris = ['https://coach.example/cb', 'http://[::1]:8765/cb'];
    const created = await check(
      apps,
      create({ name: 'Coach', redirectUris: uris, homepageUrl: 'https://c.example' }),
      201,
      'app',
    );
    await check(apps, create({ name: 'Bare', redirectUris: [uris[0]] }), 201, 'no homepage');
    await check(apps, create({ name: 'C', redirectUris: ['http://coach.example/cb'] }), 422, 'plain http');
    await check(apps, create({ name: 'C', redirectUris: ['https://coach.example/cb#x'] }), 422, 'fragment');
    await check(apps, create({ name: 'C', redirectUris: [] }), 422, 'no redirect URI');
    await check(apps, create({ name: ' ', redirectUris: uris }), 422, 'no name');
    await check(apps, create({ name: 'C', redirectUris: uris, homepageUrl: 'http://c.example' }), 422, 'homepage');
    await check(apps, create({ name: 'C', redirectUris: uris, scope: 'all' }), 422, 'unknown field');
    await check(apps, { method: 'POST', path: apps }, 400, 'no body');
    await check(apps, { method: 'POST', path: apps, headers: JSON_TYPE, body: '{' }, 400, 'not JSON');
    await check(apps, { path: apps }, 200, 'list');
    await check(apps, { method: 'HEAD', path: apps }, 200, 'HEAD list');
    await check(apps, { path: `${apps}?all=1` }, 400, 'query');
    const id = String(field(created, 'id'));
    await check(app, { path: `${apps}/${id}` }, 200, 'one app');
    await check(app, { method: 'HEAD', path: `${apps}/${id}` }, 200, 'HEAD one app');
    await check(app, { path: `${apps}/app_none` }, 404, 'unknown');
    await check(rotate, { method: 'POST', path: `${apps}/${id}/rotate-secret` }, 200, 'rotated');
    await check(rotate, { method: 'POST', path: `${apps}/app_none/rotate-secret` }, 404, 'rotate unknown');
    await check(app, { method: 'DELETE', path: `${apps}/${id}` }, 200, 'deleted');
    await check(app, { method: 'DELETE', path: `${apps}/${id}` }, 404, 'gone');
  });
});

describe('erasing a user answers as the document describes', () => {
  test('DELETE: 200 with what there was, 200 with zeros again; 400 for a bad user id', async () => {
    const user = newUserId('host-openapi-erase');
    const place = '/host/v1/users/{userId}';
    await check(KEYS, { method: 'POST', path: `/host/v1/users/${user}/keys` }, 201, 'a key to erase');
    const erased = await check(place, { method: 'DELETE', path: `/host/v1/users/${user}` }, 200, 'erased');
    assert.deepEqual(field(erased, 'erased'), { meals: 0, keys: 1, webhooks: 0 });
    const again = await check(place, { method: 'DELETE', path: `/host/v1/users/${user}` }, 200, 'again');
    assert.deepEqual(field(again, 'erased'), { meals: 0, keys: 0, webhooks: 0 });
    await check(place, { method: 'DELETE', path: `/host/v1/users/${'x'.repeat(201)}` }, 400, 'user id');
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
    const ids: Record<string, string> = { userId: 'u', mealId: 'm', keyId: 'k', webhookId: 'w', appId: 'a' };
    for (const [template, item] of Object.entries(paths())) {
      const path = template.replace(/\{(\w+)\}/g, (_all, name: string) => ids[name] ?? name);
      const res = await check('without-operation', { method: 'PATCH', path, token: null }, 405, `PATCH ${path}`);
      assert.equal(res.headers['allow'], /Allow: ([A-Z, ]+) \(/.exec(item.description)?.[1], `Allow of ${template}`);
    }
    await check('without-operation', { path: '/host/v2/users/u/keys' }, 404, 'another path');
    await check('without-operation', { path: '/v1/meals' }, 404, 'a public path');
    await check('without-operation', { method: 'OPTIONS', path: '/nowhere', token: null }, 403, 'OPTIONS');
    await check('without-operation', { path: '/host/v1/users/%zz/keys' }, 400, 'a path that does not decode');
    const badHeader = parseRawResponse(
      await rawTlsRequest(hostApi(), 'GET /host/v1/openapi.json HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'),
    );
    expectDocumented('without-operation', 'GET', badHeader, 400, 'a header name with a space');
  });
});

describe('the guard against failed authentications answers as the document describes', () => {
  test('429 with Retry-After once an address has failed too often; a valid token still passes', async () => {
    const path = `/host/v1/users/${newUserId('host-openapi')}/keys`;
    let res: TestResponse | undefined;
    for (let i = 0; i < 25; i += 1) {
      res = await request(hostApi(), { path, key: `mxs_${'1'.repeat(49)}` });
      if (res.status === 429) break;
      expectDocumented({ method: 'GET', path: KEYS }, 'GET', res, 401, `failed authentication ${i + 1}`);
    }
    assert.ok(res);
    expectDocumented({ method: 'GET', path: KEYS }, 'GET', res, 429, 'blocked address');
    await check(KEYS, { path }, 200, 'a valid token while blocked');
  });
});
