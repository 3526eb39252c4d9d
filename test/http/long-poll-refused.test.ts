import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApiKeyRecord } from '../../src/domain/key-records.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { newUserId, request, type ServedApp, type TestResponse } from '../support/server.js';
import { OLD, sleep, WWW_AUTHENTICATE } from './http-expect.js';

/**
 * A long poll whose key is refused while it is held (docs/api.md#changes-as-they-happen-wait): it
 * is answered, within about two seconds, with the 401 a new request of that key gets, not
 * held until its deadline with the empty page of a person who is gone. The key is revoked or
 * erased through another handle on the store, as `keys revoke` or `users erase` in another
 * process do.
 */

/**
 * The check of the held keys every two seconds, its query and the answer, with room for a busy
 * machine: what is held without the check is the whole `wait`, 30 s here.
 */
const WITHIN_MS = 4_000;

describe('a held long poll whose key is refused meanwhile', { concurrency: true }, () => {
  let server: ServedApp;
  let store: Storage;
  before(async () => {
    server = await startInProcessServer();
    store = await openStorage(server.db);
  });
  after(async () => {
    await store?.close();
    await server?.stop();
  });

  async function heldThenRefused(refuse: (key: ApiKeyRecord, userId: string) => Promise<unknown>) {
    const userId = newUserId('lp-refused');
    const { id, key } = await server.createKey(userId);
    const started = performance.now();
    const answer = request(server, { path: `/v1/meals?lastModifiedSince=${OLD}&wait=30`, key }).then(
      (response: TestResponse) => ({ response, at: performance.now() }),
    );
    // Past a check of the held keys: a key still accepted stays held.
    await sleep(2_300);
    const [record] = (await store.keys.listApiKeys(userId)).filter((listed) => listed.id === id);
    assert.ok(record !== undefined);
    const refusedAt = performance.now();
    await refuse(record, userId);
    const { response, at } = await answer;
    assert.ok(refusedAt - started >= 2_200, 'held until the refusal');
    assert.equal(response.status, 401, response.text);
    assert.deepEqual((response.json as { error: { code: string } }).error.code, 'invalid_api_key');
    assert.equal(response.headers['www-authenticate'], WWW_AUTHENTICATE);
    assert.equal(response.headers['x-ratelimit-remaining'], undefined, 'a refusal carries no limits');
    assert.ok(at - refusedAt <= WITHIN_MS, `answered ${Math.round(at - refusedAt)} ms after the refusal`);
    // And a new request of it is refused alike.
    assert.equal((await request(server, { path: `/v1/meals?lastModifiedSince=${OLD}`, key })).status, 401);
  }

  test('its key revoked: 401 invalid_api_key within about two seconds', () =>
    heldThenRefused((key) => store.keys.revokeApiKey(key.id, Date.now())));

  test('its person erased: 401 invalid_api_key within about two seconds', () =>
    heldThenRefused((_key, userId) => store.erasure.eraseUser(userId, Date.now())));

  test('a key still accepted is held to its deadline, through the checks, and answered with the empty page', async () => {
    const { key } = await server.createKey(newUserId('lp-kept'));
    const started = performance.now();
    const response = await request(server, { path: `/v1/meals?lastModifiedSince=${OLD}&wait=5`, key });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual((response.json as { meals: unknown[] }).meals, []);
    assert.ok(performance.now() - started >= 4_900);
  });
});
