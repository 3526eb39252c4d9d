import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseRawResponse } from '../http/tls-client.js';
import { makeMeal, newUserId, rawTlsRequest } from '../support/server.js';
import {
  field,
  IMPORT,
  JSON_TYPE,
  json,
  MEAL,
  NDJSON_TYPE,
  newMealId,
  record,
  useHostConformance,
} from './host-openapi-checker.js';

// The meals paths of the host API's document, each case's answer checked against it
// (host-openapi-checker.ts); the other paths are host-openapi-conformance.test.ts's.

const { check, expectDocumented, hostApi, token } = useHostConformance();

const put = (user: string, id: string, body: string) => ({
  method: 'PUT',
  path: `/host/v1/users/${user}/meals/${id}`,
  headers: JSON_TYPE,
  body,
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
    const head = `POST /host/v1/users/${user}/meals/import HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token()}\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${64 * 1024 * 1024 + 1}\r\n\r\n{}`;
    const tooLarge = parseRawResponse(await rawTlsRequest(hostApi(), head));
    expectDocumented({ method: 'POST', path: IMPORT }, 'POST', tooLarge, 413, 'over 64 MiB');
  });
});
