import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateApiKey } from '../../src/domain/api-key.js';
import { request, startTestServer, type TestResponse, type TestServer } from '../support/server.js';
import { assertError, OLD } from './http-expect.js';

// What the public listener answers, whatever it is sent (CONTRACT.md sections 1 and 5): the
// contract's JSON with its headers, and nothing of the request echoed back.
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
