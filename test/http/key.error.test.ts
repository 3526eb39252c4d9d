import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateApiKey } from '../../src/domain/api-key.js';
import { cliJson } from '../support/cli.js';
import { newUserId, request, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { assertError, OLD, WWW_AUTHENTICATE } from './http-expect.js';
import { assertKeyInfo } from './key-info-expect.js';

// The refusals of GET /v1/key, in the order of /v1/meals (docs/errors.md#errors): size, OPTIONS,
// route, method, Origin, authentication, then parameters, of which it takes none.

describe('GET /v1/key refusals', () => {
  let server: ServedApp;
  let key: string;
  let keyId: string;

  before(async () => {
    server = await startInProcessServer({ minIntervalMs: 3000, dailyLimit: 3 });
    ({ key, id: keyId } = await server.createKey(newUserId('key-errors')));
  });

  after(async () => {
    await server?.stop();
  });

  test('any query parameter is 400 invalid_parameter naming it, with the rate-limit headers, counting nothing', async () => {
    const cases: [string, string][] = [
      ['/v1/key?x=1', 'x'],
      [`/v1/key?lastModifiedSince=${OLD}`, 'lastModifiedSince'],
      ['/v1/key?limt', 'limt'],
      ['/v1/key?a=1&b=2', 'a'],
      ['/v1/key?%6Bey=1', 'key'],
      [`/v1/key?${generateApiKey()}=1`, 'mxk_[redacted]'],
    ];
    for (const [path, param] of cases) {
      const res = await request(server, { path, key });
      assertError(res, 400, 'invalid_parameter', { param, label: path });
      assert.equal(res.headers['x-ratelimit-remaining'], '3', `${path}: the rate-limit headers, nothing used`);
      assert.ok(res.headers['ratelimit-policy'], path);
    }
    assert.equal(assertKeyInfo(await request(server, { path: '/v1/key', key })).limits.usedToday, 0);
  });

  test('401 missing_api_key and invalid_api_key with WWW-Authenticate, as /v1/meals answers them', async () => {
    const missing = [undefined, '', 'Bearer', 'bearer   '];
    for (const authorization of missing) {
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      const res = await request(server, { path: '/v1/key', headers });
      assertError(res, 401, 'missing_api_key', { message: 'Missing API key.', param: null, label: `${authorization}` });
      assert.equal(res.headers['www-authenticate'], WWW_AUTHENTICATE);
      assert.equal(res.headers['ratelimit-policy'], undefined, 'no key: no rate-limit headers');
    }
    const revoked = await server.createKey(newUserId('key-revoked'));
    await cliJson(['keys', 'revoke', revoked.id, '--db', server.db]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const invalid = [
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      `Bearer ${generateApiKey()}`,
      'Bearer mxk_short',
    ];
    for (const authorization of [...invalid, `Bearer ${revoked.key}`]) {
      const res = await request(server, { path: '/v1/key', headers: { authorization } });
      assertError(res, 401, 'invalid_api_key', { message: 'Invalid API key.', param: null, label: authorization });
      assert.equal(res.headers['www-authenticate'], WWW_AUTHENTICATE);
    }
    const lowercase = await request(server, { path: '/v1/key', headers: { authorization: `bEaReR ${key}` } });
    assert.equal(assertKeyInfo(lowercase).key.id, keyId, 'the scheme is case-insensitive');
  });

  test('the order of faults: 403 OPTIONS, 404, 405 with Allow, 403 Origin, 401, then 400', async () => {
    assertError(await request(server, { method: 'OPTIONS', path: '/v1/key?x=1' }), 403, 'browser_forbidden');
    assertError(await request(server, { path: '/v1/keys', key }), 404, 'not_found');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await request(server, { method, path: '/v1/key?x=1', headers: { origin: 'https://a.example' } });
      assertError(res, 405, 'method_not_allowed', { label: method });
      assert.equal(res.headers.allow, 'GET, HEAD');
    }
    const origin = await request(server, { path: '/v1/key?x=1', headers: { origin: 'https://a.example' } });
    assertError(origin, 403, 'browser_forbidden', { label: 'Origin before the key' });
    assertError(await request(server, { path: '/v1/key?x=1' }), 401, 'missing_api_key', { label: 'key before query' });
    const bad = await request(server, { path: '/v1/key?x=1', key: generateApiKey() });
    assertError(bad, 401, 'invalid_api_key', { label: 'a bad key before the query' });
    assertError(await request(server, { path: `/v1/key?key=${key}` }), 401, 'missing_api_key', {
      label: 'a key in the query is no key',
    });
  });
});

describe('GET /v1/key and the failed-attempt rule', () => {
  let server: ServedApp;

  before(async () => {
    server = await startInProcessServer();
  });

  after(async () => {
    await server?.stop();
  });

  test('its failures count with those of /v1/meals: the 21st in a minute is 429, while a valid key still passes', async () => {
    const { key } = await server.createKey(newUserId('key-guard'));
    for (let i = 0; i < 20; i += 1) {
      const path = i % 2 === 0 ? '/v1/key' : `/v1/meals?lastModifiedSince=${OLD}`;
      assertError(await request(server, { path, key: generateApiKey() }), 401, 'invalid_api_key', { label: `${i}` });
    }
    const blocked = await request(server, { path: '/v1/key' });
    assertError(blocked, 429, 'rate_limited');
    const retryAfter = Number(blocked.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(blocked.headers['ratelimit-policy'], undefined);
    assertKeyInfo(await request(server, { path: '/v1/key', key }), 'a valid key from a blocked address');
  });
});
