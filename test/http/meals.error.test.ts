import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getMeals, makeMeal, newUserId, request, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { assertError, assertPage, getMealsExact, OLD, WWW_AUTHENTICATE } from './http-expect.js';

// Failed authentications stay well under the brute-force threshold (20 a minute from one
// address): this file makes 4 on `server`. `elsewhere` has a store of its own (its own cursor
// secret). The 410 cases are in meals.sync.test.ts.
let server: ServedApp;
let elsewhere: ServedApp;
let key: string; // a key with two meals, for the parameter checks
let cursor: string; // a real cursor of that key's user

before(async () => {
  [server, elsewhere] = await Promise.all([startInProcessServer(), startInProcessServer()]);
  const userId = newUserId();
  key = (await server.createKey(userId)).key;
  await server.importMeals(userId, [makeMeal(), makeMeal()]);
  cursor = assertPage(await getMeals(server, key, { lastModifiedSince: OLD, limit: '1' })).nextCursor!;
});

after(async () => {
  await Promise.all([server.stop(), elsewhere.stop()]);
});

/** A raw query string (nothing re-encoded), so that the exact bytes under test are sent. */
const raw = (query: string) => request(server, { path: `/v1/meals?${query}`, key });

test('without lastModifiedSince the answer is 400 missing_parameter naming lastModifiedSince, whatever else is sent', async () => {
  for (const query of ['', 'limit=5', 'limit=0', `LastModifiedSince=${OLD}`, 'includeDeleted=maybe&foo=1']) {
    const res = await getMeals(server, key, query);
    assertError(res, 400, 'missing_parameter', { param: 'lastModifiedSince', label: query });
  }
});

test('a lastModifiedSince that is empty, impossible or not RFC 3339 is 400 invalid_parameter', async () => {
  const values = [
    '',
    ' ',
    '2025-02-30',
    '2025-02-29',
    '2025-04-31T00:00:00Z',
    '2025-13-01',
    '2025-00-10',
    '2025-01-00',
    '2025-01-01T24:00:00Z',
    '2025-01-01T23:60:00Z',
    '2025-01-01T00:00:00.1234567890Z',
    '2025-01-01T00:00:00+0100',
    '2025-01-01T00:00:00+01',
    '2025-01-01T00:00:00ZZ',
    '2025-01-01T00:00:00Z ',
    '2025-1-1',
    '20250101',
    '2025-01-01Z',
    'yesterday',
    'null',
  ];
  for (const value of values) {
    const res = await getMealsExact(server, key, { lastModifiedSince: value });
    assertError(res, 400, 'invalid_parameter', { param: 'lastModifiedSince', label: JSON.stringify(value) });
  }
});

test('a limit that is not 1 to 5000 in ASCII digits is 400 invalid_parameter naming limit', async () => {
  const values = ['0', '00', '-1', '-0', '+5', '5001', '05001', '1.5', '5.0', '1e3', '0x10', '1_000', 'abc', ' 5'];
  values.push('5 ', ' ', '', '٣', '５', '99999999999999999999999');
  for (const value of values) {
    const res = await getMealsExact(server, key, { lastModifiedSince: OLD, limit: value });
    assertError(res, 400, 'invalid_parameter', { param: 'limit', label: JSON.stringify(value) });
  }
});

test('an unknown query parameter is 400 invalid_parameter naming it, even with an empty value or no value', async () => {
  for (const [query, param] of [
    [`lastModifiedSince=${OLD}&limt=5`, 'limt'],
    [`lastModifiedSince=${OLD}&Limit=5`, 'Limit'],
    [`lastModifiedSince=${OLD}&since=${OLD}`, 'since'],
    [`lastModifiedSince=${OLD}&foo=`, 'foo'],
    [`lastModifiedSince=${OLD}&foo`, 'foo'],
    [`deleted=true&lastModifiedSince=${OLD}`, 'deleted'],
  ]) {
    assertError(await raw(query!), 400, 'invalid_parameter', { param: param!, label: query! });
  }
});

test('a parameter given twice is 400 invalid_parameter naming it, even with the same value both times', async () => {
  for (const [query, param] of [
    [`lastModifiedSince=${OLD}&lastModifiedSince=${OLD}`, 'lastModifiedSince'],
    [`lastModifiedSince=${OLD}&limit=5&limit=6`, 'limit'],
    [`lastModifiedSince=${OLD}&cursor=${cursor}&cursor=${cursor}`, 'cursor'],
    [`lastModifiedSince=${OLD}&includeDeleted=false&includeDeleted=false`, 'includeDeleted'],
  ]) {
    assertError(await raw(query!), 400, 'invalid_parameter', { param: param!, label: query! });
  }
});

test('includeDeleted other than exactly true or false is 400 invalid_parameter naming includeDeleted', async () => {
  for (const value of ['TRUE', 'True', 'False', '1', '0', 'yes', '', ' true', 'true ']) {
    const res = await getMealsExact(server, key, { lastModifiedSince: OLD, includeDeleted: value });
    assertError(res, 400, 'invalid_parameter', { param: 'includeDeleted', label: JSON.stringify(value) });
  }
});

test('an altered, truncated, extended or made-up cursor is 400 invalid_parameter naming cursor', async () => {
  const swap = (c: string) => (c === 'A' ? 'B' : 'A');
  const variants = [
    `${cursor.slice(0, -1)}${swap(cursor.at(-1)!)}`,
    `${swap(cursor[0]!)}${cursor.slice(1)}`,
    `${cursor.slice(0, 10)}${swap(cursor[10]!)}${cursor.slice(11)}`,
    cursor.slice(0, -1),
    cursor.slice(0, -4),
    `${cursor}A`,
    `${cursor}=`,
    cursor.toUpperCase(),
    Buffer.from(cursor, 'base64url').toString('base64'),
    '',
    'abc',
    '!!!!',
    Buffer.from('{"modifiedAt":0,"id":"x"}').toString('base64url'),
  ].filter((v) => v !== cursor);
  for (const value of variants) {
    const res = await getMealsExact(server, key, { lastModifiedSince: OLD, cursor: value });
    assertError(res, 400, 'invalid_parameter', { param: 'cursor', label: value });
  }
});

test("another user's cursor, or a cursor from another store, is 400 invalid_parameter naming cursor", async () => {
  const other = newUserId();
  const otherKey = (await server.createKey(other)).key;
  await server.importMeals(other, [makeMeal()]);
  const foreign = await getMeals(server, otherKey, { lastModifiedSince: OLD, cursor });
  assertError(foreign, 400, 'invalid_parameter', { param: 'cursor', label: "another user's cursor" });

  // The same user on a server with its own store: that store's secret signed the cursor.
  const { key: elsewhereKey } = await elsewhere.createKey(other);
  await elsewhere.importMeals(other, [makeMeal(), makeMeal()]);
  const theirs = assertPage(await getMeals(elsewhere, elsewhereKey, { lastModifiedSince: OLD, limit: '1' }));
  const crossed = await getMeals(server, otherKey, { lastModifiedSince: OLD, cursor: theirs.nextCursor! });
  assertError(crossed, 400, 'invalid_parameter', { param: 'cursor', label: 'a cursor from another store' });
});

test('when several parameters are wrong the first in the order lastModifiedSince, limit, cursor, includeDeleted, unknown is named', async () => {
  const cases: [query: string, code: string, param: string][] = [
    ['limit=0&lastModifiedSince=nope', 'invalid_parameter', 'lastModifiedSince'],
    ['limit=0&includeDeleted=x', 'missing_parameter', 'lastModifiedSince'],
    ['zzz=1&cursor=bad&lastModifiedSince=2025-02-30', 'invalid_parameter', 'lastModifiedSince'],
    [`includeDeleted=x&cursor=bad&limit=abc&lastModifiedSince=${OLD}`, 'invalid_parameter', 'limit'],
    [`zzz=1&includeDeleted=x&cursor=bad&lastModifiedSince=${OLD}`, 'invalid_parameter', 'cursor'],
    [`zzz=1&includeDeleted=x&lastModifiedSince=${OLD}`, 'invalid_parameter', 'includeDeleted'],
    [`limit=5&limit=5&lastModifiedSince=nope`, 'invalid_parameter', 'lastModifiedSince'],
    [`cursor=bad&limit=1&limit=2&lastModifiedSince=${OLD}`, 'invalid_parameter', 'limit'],
    [
      `zzz=1&zzz=2&includeDeleted=true&includeDeleted=true&lastModifiedSince=${OLD}`,
      'invalid_parameter',
      'includeDeleted',
    ],
  ];
  for (const [query, code, param] of cases) assertError(await raw(query), 400, code, { param, label: query });
});

test('a value that is not valid percent-encoding is 400 invalid_parameter naming its parameter, in the usual order', async () => {
  const cases: [query: string, param: string][] = [
    ['lastModifiedSince=%ZZ', 'lastModifiedSince'],
    [`lastModifiedSince=${OLD}&limit=%`, 'limit'],
    [`lastModifiedSince=${OLD}&cursor=%E0%A4%A`, 'cursor'],
    [`lastModifiedSince=${OLD}&includeDeleted=%FF`, 'includeDeleted'],
    ['includeDeleted=%FF&limit=%&lastModifiedSince=nope', 'lastModifiedSince'],
  ];
  for (const [query, param] of cases) assertError(await raw(query), 400, 'invalid_parameter', { param, label: query });
});

test('parameters are checked after the key: a bad query without a valid key is 401, not 400', async () => {
  const noKey = await request(server, { path: '/v1/meals?limit=0&zzz=1' });
  assertError(noKey, 401, 'missing_api_key', { param: null, message: 'Missing API key.' });
  assert.equal(noKey.headers['www-authenticate'], WWW_AUTHENTICATE);
  const badKey = await request(server, { path: '/v1/meals?limit=0&zzz=1', key: 'mxk_nope' });
  assertError(badKey, 401, 'invalid_api_key', { param: null, message: 'Invalid API key.' });
});

test('a valid key in the query string is not read: without a header it is 401 missing_api_key, with one it is an unknown parameter', async () => {
  for (const name of ['api_key', 'key']) {
    const path = `/v1/meals?lastModifiedSince=${OLD}&${name}=${key}`;
    const alone = await request(server, { path });
    assertError(alone, 401, 'missing_api_key', { param: null, message: 'Missing API key.', label: name });
    const withHeader = await request(server, { path, key });
    assertError(withHeader, 400, 'invalid_parameter', { param: name, label: name });
  }
});
