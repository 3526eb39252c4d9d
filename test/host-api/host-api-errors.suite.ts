import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type HostApiServer, hostCall, hostRecord, mealPath } from '../support/host-api.js';
import { getMeals, newUserId, rawTlsRequest, request, type TestResponse } from '../support/server.js';

const HOST_CHALLENGE = 'Bearer realm="meal-export-host"';

/** A JSON error of the contract's shape, with its code (and param, line where given). */
function assertError(res: TestResponse, status: number, code: string, extra: Record<string, unknown> = {}): void {
  assert.equal(res.status, status, res.text);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.equal(res.headers['cache-control'], 'no-store');
  const error = (res.json as { error: Record<string, unknown> }).error;
  assert.equal(error.code, code, res.text);
  assert.equal(typeof error.message, 'string');
  for (const [name, value] of Object.entries(extra)) assert.equal(error[name], value, `${name} of ${res.text}`);
}

/** Nothing was written: the meal is unknown. */
async function assertNotWritten(server: HostApiServer, userId: string, mealId: string): Promise<void> {
  assert.equal((await hostCall(server, { path: mealPath(userId, mealId) })).status, 404, 'nothing was written');
}

/** Bad input gets a clear JSON error and writes nothing, on the store `open` serves. */
export function hostErrorRules(name: string, open: () => HostApiServer) {
  describe(`${name}: refusals`, () => {
    test('every answer is JSON with no-store, nosniff and HSTS; the document needs no token', async () => {
      const server = open();
      const res = await hostCall(server, { path: '/host/v1/openapi.json', token: null });
      assert.equal(res.status, 200);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['strict-transport-security'], 'max-age=31536000');
      assert.equal((res.json as { openapi: string }).openapi, '3.1.0');
    });

    test('tokens: none is missing_token, anything else invalid_token; a user key is refused here, a token on the public listener', async () => {
      const server = open();
      const path = mealPath(newUserId('auth'), 'm');
      const missing = await hostCall(server, { path, token: null });
      assertError(missing, 401, 'missing_token', { message: 'Missing service token.' });
      assert.equal(missing.headers['www-authenticate'], HOST_CHALLENGE);
      // The token with its last character changed: its checksum fails.
      const altered = `${server.token.slice(0, -1)}${server.token.endsWith('x') ? 'y' : 'x'}`;
      for (const token of ['nonsense', altered, (await server.createKey('someone')).key]) {
        const res = await hostCall(server, { path, token });
        assertError(res, 401, 'invalid_token', { message: 'Invalid service token.' });
        assert.equal(res.headers['www-authenticate'], HOST_CHALLENGE);
      }
      const onPublic = await getMeals(server, server.token, { lastModifiedSince: '2000-01-01T00:00:00Z' });
      assertError(onPublic, 401, 'invalid_api_key');
    });

    test("the two listeners share no route: each answers the other's paths 404", async () => {
      const server = open();
      assertError(
        await hostCall(server, { path: '/v1/meals?lastModifiedSince=2000-01-01T00:00:00Z' }),
        404,
        'not_found',
      );
      assertError(await hostCall(server, { path: '/v1/openapi.json' }), 404, 'not_found');
      assertError(await hostCall(server, { path: '/readyz' }), 404, 'not_found');
      const { key } = await server.createKey(newUserId('cross'));
      assertError(await request(server, { path: mealPath('u', 'm'), key }), 404, 'not_found');
      assertError(await request(server, { path: '/host/v1/openapi.json' }), 404, 'not_found');
    });

    test('another method on a known path is 405 with Allow, before the token is asked for', async () => {
      const server = open();
      const res = await hostCall(server, { method: 'PATCH', path: mealPath('u', 'm'), token: null });
      assertError(res, 405, 'method_not_allowed');
      assert.equal(res.headers.allow, 'GET, HEAD, PUT, DELETE');
      const keys = await hostCall(server, { method: 'PUT', path: '/host/v1/users/u/keys' });
      assert.equal(keys.headers.allow, 'POST, GET, HEAD');
      assertError(await hostCall(server, { method: 'GET', path: '/host/v1/keys/key_x' }), 405, 'method_not_allowed');
    });

    test('browsers are refused: OPTIONS and an Origin header are 403', async () => {
      const server = open();
      assertError(await hostCall(server, { method: 'OPTIONS', path: mealPath('u', 'm') }), 403, 'browser_forbidden');
      const withOrigin = { path: mealPath('u', 'm'), headers: { origin: 'https://evil.example' } };
      assertError(await hostCall(server, withOrigin), 403, 'browser_forbidden');
    });

    test('user ids: a control character or over 200 characters is 400 invalid_parameter userId; bad escapes 400', async () => {
      const server = open();
      const record = hostRecord();
      for (const userId of ['a\nb', 'tab\there', 'x'.repeat(201)]) {
        const res = await hostCall(server, { method: 'PUT', path: mealPath(userId, 'm'), json: record });
        assertError(res, 400, 'invalid_parameter', { param: 'userId' });
      }
      assertError(
        await hostCall(server, { method: 'PUT', path: mealPath('u', 'a\u0000'), json: record }),
        400,
        'invalid_parameter',
        {
          param: 'mealId',
        },
      );
      assertError(await hostCall(server, { path: '/host/v1/users/%ZZ/meals/m' }), 400, 'bad_request');
    });

    test('sizes as on the public listener: a URL over 8 KiB 414, headers over 16 KiB 431, no Host 400, in JSON', async () => {
      const server = open();
      assertError(await hostCall(server, { path: mealPath('u', 'x'.repeat(9000)) }), 414, 'request_too_large');
      const big = { 'x-padding': 'p'.repeat(17 * 1024) };
      assertError(await hostCall(server, { path: mealPath('u', 'm'), headers: big }), 431, 'request_too_large');
      const raw = await rawTlsRequest(
        server.hostApi,
        `GET ${mealPath('u', 'm')} HTTP/1.1\r\nConnection: close\r\n\r\n`,
      );
      assert.match(raw, /^HTTP\/1\.1 400 /);
      assert.match(raw, /"code":"bad_request"/);
    });

    test('ids up to 200 characters, whatever their script, are good ids: a character is a code point', async () => {
      const server = open();
      const userId = `${newUserId('long')}${'ü'.repeat(150)}`.slice(0, 200);
      const mealId = '𝄞'.repeat(100);
      const res = await hostCall(server, { method: 'PUT', path: mealPath(userId, mealId), json: hostRecord() });
      assert.equal(res.status, 200, res.text);
      assert.equal((res.json as { id: string }).id, mealId);
      // 150 emoji: 150 characters as the document's maxLength counts them (300 UTF-16 units).
      const emoji = '🍲'.repeat(150);
      const inPath = await hostCall(server, { method: 'PUT', path: mealPath(userId, emoji), json: hostRecord() });
      assert.equal(inPath.status, 200, inPath.text);
      const line = `${JSON.stringify({ id: `${emoji}🥗`, ...hostRecord() })}\n`;
      const imported = await hostCall(server, {
        method: 'POST',
        path: `/host/v1/users/${encodeURIComponent(userId)}/meals/import`,
        body: line,
        headers: { 'content-type': 'application/x-ndjson' },
      });
      assert.equal(imported.status, 200, imported.text);
      const tooLong = await hostCall(server, {
        method: 'PUT',
        path: mealPath(userId, '🍲'.repeat(201)),
        json: hostRecord(),
      });
      assertError(tooLong, 400, 'invalid_parameter', { param: 'mealId' });
    });

    test('every JSON answer ends with a newline, so curl prints one a line; /healthz stays {"ok":true} exactly', async () => {
      const server = open();
      const userId = newUserId('newline');
      const mealId = `${userId}-m`;
      const answers = [
        await hostCall(server, { method: 'PUT', path: mealPath(userId, mealId), json: hostRecord() }),
        await hostCall(server, { path: mealPath(userId, mealId) }),
        await hostCall(server, { method: 'PUT', path: mealPath(userId, mealId), json: { type: 'tea' } }),
        await hostCall(server, { path: mealPath(userId, 'none') }),
        await hostCall(server, { path: mealPath(userId, mealId), token: null }),
        await hostCall(server, { method: 'PATCH', path: mealPath(userId, mealId) }),
        await hostCall(server, { path: '/host/v2/nothing' }),
        await hostCall(server, { path: '/host/v1/openapi.json', token: null }),
      ];
      for (const answer of answers) {
        assert.ok(answer.text.endsWith('}\n'), `${answer.status}: ${JSON.stringify(answer.text.slice(-40))}`);
        assert.equal(answer.text.indexOf('\n'), answer.text.length - 1, 'one line');
      }
      assert.equal((await hostCall(server, { path: '/healthz', token: null })).text, '{"ok":true}');
    });

    test('/healthz answers on this listener too, without a token', async () => {
      const server = open();
      const res = await hostCall(server, { path: '/healthz', token: null });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json, { ok: true });
      assertError(await hostCall(server, { method: 'POST', path: '/healthz', token: null }), 405, 'method_not_allowed');
    });

    test('checks run in the documented order: token, then the ids and the query, then the body', async () => {
      const server = open();
      const bad = { method: 'PUT', body: '{"type": ', headers: { 'content-type': 'application/json' } };
      // A bad body, a bad id and a bad query together: the token is asked for first…
      const badAll = { ...bad, path: `${mealPath('a\nb', 'm')}?x=1` };
      assertError(await hostCall(server, { ...badAll, token: null }), 401, 'missing_token');
      // …then the ids, in path order…
      assertError(await hostCall(server, badAll), 400, 'invalid_parameter', { param: 'userId' });
      // …then the query…
      assertError(await hostCall(server, { ...bad, path: `${mealPath('u', 'm')}?x=1` }), 400, 'invalid_parameter', {
        param: 'x',
      });
      // …and only then the body, even one over 1 MiB.
      const huge = { ...bad, body: `{"title":"${'x'.repeat(1100 * 1024)}"}` };
      assertError(await hostCall(server, { ...huge, path: `${mealPath('u', 'm')}?x=1` }), 400, 'invalid_parameter');
      assertError(await hostCall(server, { ...huge, path: mealPath('u', 'm') }), 413, 'request_too_large');
      assertError(await hostCall(server, { ...bad, path: mealPath('u', 'm') }), 400, 'bad_request');
    });

    test('a body that is not UTF-8, or declares another charset, is 400 bad_request; nothing written', async () => {
      const server = open();
      const userId = newUserId('utf8');
      const path = mealPath(userId, `${userId}-m`);
      const json = Buffer.concat([
        Buffer.from('{"type":"lunch","date":"2026-11-20T12:00:00Z","title":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(' ok"}'),
      ]);
      const headers = { 'content-type': 'application/json' };
      assertError(await hostCall(server, { method: 'PUT', path, body: json, headers }), 400, 'bad_request', {
        message: 'The body is not UTF-8 text.',
      });
      const latin1 = { 'content-type': 'application/json; charset=iso-8859-1' };
      const good = JSON.stringify(hostRecord({ title: 'Café' }));
      assertError(await hostCall(server, { method: 'PUT', path, body: good, headers: latin1 }), 400, 'bad_request');
      const importPath = `/host/v1/users/${encodeURIComponent(userId)}/meals/import`;
      const lines = Buffer.concat([
        Buffer.from(`{"id":"${userId}-i","type":"lunch","date":"2026-11-20T12:00:00Z","title":"`),
        Buffer.from([0xc3]),
        Buffer.from('"}\n'),
      ]);
      const ndjson = { 'content-type': 'application/x-ndjson' };
      assertError(
        await hostCall(server, { method: 'POST', path: importPath, body: lines, headers: ndjson }),
        400,
        'bad_request',
      );
      const ndjsonLatin1 = { 'content-type': 'application/x-ndjson; charset=latin1' };
      const line = `${JSON.stringify({ id: `${userId}-j`, ...hostRecord() })}\n`;
      assertError(
        await hostCall(server, { method: 'POST', path: importPath, body: line, headers: ndjsonLatin1 }),
        400,
        'bad_request',
      );
      await assertNotWritten(server, userId, `${userId}-m`);
      await assertNotWritten(server, userId, `${userId}-i`);
      await assertNotWritten(server, userId, `${userId}-j`);
      // UTF-8 said aloud is UTF-8.
      const utf8 = { 'content-type': 'application/json; charset=UTF-8' };
      assert.equal((await hostCall(server, { method: 'PUT', path, body: good, headers: utf8 })).status, 200);
    });

    test('a body that is not JSON is 400 bad_request; over 1 MiB 413; nothing written', async () => {
      const server = open();
      const userId = newUserId('body');
      const path = mealPath(userId, 'm');
      const headers = { 'content-type': 'application/json' };
      assertError(await hostCall(server, { method: 'PUT', path, body: '{"type": ', headers }), 400, 'bad_request');
      assertError(await hostCall(server, { method: 'PUT', path, body: '', headers }), 400, 'bad_request');
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      assertError(
        await hostCall(server, { method: 'PUT', path, body: 'type=lunch', headers: form }),
        400,
        'bad_request',
      );
      const huge = hostRecord({ description: 'x'.repeat(1024 * 1024) });
      assertError(await hostCall(server, { method: 'PUT', path, json: huge }), 413, 'request_too_large');
      await assertNotWritten(server, userId, 'm');
    });

    test('a record that breaks the rules is 422 invalid_record naming the field; unknown fields too', async () => {
      const server = open();
      const userId = newUserId('record');
      const cases: Array<[Record<string, unknown>, string]> = [
        [hostRecord({ type: 'brunch' }), 'type'],
        [hostRecord({ date: 'yesterday' }), 'date'],
        // A local time without its offset (Python's naive isoformat()) is not taken as UTC.
        [hostRecord({ date: '2026-11-25T12:30:00' }), 'date'],
        [hostRecord({ date: '2026-11-25T12:30:00.123456' }), 'date'],
        [hostRecord({ date: '2026-11-25' }), 'date'],
        [hostRecord({ caloriesTotal: -1 }), 'caloriesTotal'],
        [hostRecord({ title: 42 }), 'title'],
        [hostRecord({ sourceVersion: 1.5 }), 'sourceVersion'],
        [hostRecord({ sourceVersion: -1 }), 'sourceVersion'],
        [hostRecord({ sourceVersion: 2 ** 53 }), 'sourceVersion'],
        [hostRecord({ calories: 300 }), 'calories'],
        // A GET's read-only fields are taken back, but an id must be the path's and deleted false.
        [hostRecord({ id: 'another' }), 'id'],
        [hostRecord({ deleted: true }), 'deleted'],
        [hostRecord({ userId: 'u' }), 'userId'],
        [{ ...hostRecord(), type: undefined }, 'type'],
      ];
      for (const [record, param] of cases) {
        const res = await hostCall(server, { method: 'PUT', path: mealPath(userId, 'm'), json: record });
        assertError(res, 422, 'invalid_record', { param });
      }
      assertError(
        await hostCall(server, { method: 'PUT', path: mealPath(userId, 'm'), json: [1] }),
        422,
        'invalid_record',
      );
      await assertNotWritten(server, userId, 'm');
    });

    test('query parameters: unknown ones and a bad sourceVersion are 400 invalid_parameter', async () => {
      const server = open();
      const path = mealPath(newUserId('query'), 'm');
      assertError(await hostCall(server, { path: `${path}?x=1` }), 400, 'invalid_parameter', { param: 'x' });
      for (const version of ['-1', '1.5', 'abc', '9007199254740992', '']) {
        const res = await hostCall(server, { method: 'DELETE', path: `${path}?sourceVersion=${version}` });
        assertError(res, 400, 'invalid_parameter', { param: 'sourceVersion' });
      }
    });
  });
}
