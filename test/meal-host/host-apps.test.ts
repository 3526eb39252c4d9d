import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { digestApiKey, displayPrefix, generateApiKey } from '../../src/domain/api-key.js';
import { digestAppSecret } from '../../src/domain/app-secret.js';
import { newKeyId } from '../../src/domain/key-request.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { hostRefusal, useTempMealHost } from '../support/temp-meal-host.js';

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const URIS = ['https://coach.example/cb', 'http://localhost:3000/cb'];

/** meal-export/host's app calls: `apps …` for the app's own code (docs/host-api.md#apps-connect). */
describe('the host module: apps', () => {
  const store = useTempMealHost('host-apps');
  let storage: Storage;

  before(async () => {
    storage = await openStorage(store.db);
  });

  after(async () => {
    await storage?.close();
  });

  test('registers an app with its secret shown once, lists it without, rotates the secret and deletes it', async () => {
    const created = await store.host.createApp({
      name: ' Coach ',
      redirectUris: URIS,
      homepageUrl: 'https://c.example',
    });
    assert.deepEqual(Object.keys(created), ['id', 'name', 'redirectUris', 'homepageUrl', 'createdAt', 'clientSecret']);
    assert.match(created.id, /^app_[0-9A-Za-z]{16}$/);
    assert.match(created.clientSecret, /^mxa_[0-9A-Za-z]{49}$/);
    assert.equal(created.name, 'Coach');
    assert.match(created.createdAt, ISO_RE);
    const { clientSecret, ...shown } = created;
    assert.deepEqual(await store.host.listApps(), [shown]);
    assert.equal((await storage.apps.findAppBySecretDigest(digestAppSecret(clientSecret)))?.id, created.id);

    const rotated = await store.host.rotateAppSecret(created.id);
    assert.equal(rotated?.id, created.id);
    assert.equal(await storage.apps.findAppBySecretDigest(digestAppSecret(clientSecret)), undefined, 'old secret');
    assert.equal(await store.host.rotateAppSecret('app_unknown'), undefined);

    const key = generateApiKey();
    const now = Date.now();
    const keyFields = { prefix: displayPrefix(key), digest: digestApiKey(key), createdAt: now, expiresAt: null };
    const granted = await storage.apps.issueAppKey(
      { id: newKeyId(), userId: 'u1', name: 'Coach', ...keyFields },
      created.id,
      10,
      now,
    );
    assert.ok(granted.ok);
    assert.equal((await store.host.listKeys('u1'))[0]?.appId, created.id, 'listKeys says which app');
    assert.equal(await store.host.deleteApp(created.id), true);
    assert.equal((await store.host.listKeys('u1'))[0]?.status, 'revoked', "the app's key is revoked");
    assert.equal(await store.host.deleteApp(created.id), false);
    assert.deepEqual(await store.host.listApps(), []);
  });

  test('refuses a registration that breaks its rules as invalid_argument, making no app', async () => {
    for (const options of [
      { name: '  ', redirectUris: URIS },
      { name: 'C', redirectUris: [] },
      { name: 'C', redirectUris: ['http://coach.example/cb'] },
      { name: 'C', redirectUris: ['https://coach.example/cb#x'] },
      { name: 'C', redirectUris: URIS, homepageUrl: 'http://c.example' },
    ]) {
      await assert.rejects(store.host.createApp(options), hostRefusal('invalid_argument'), JSON.stringify(options));
    }
    assert.deepEqual(await store.host.listApps(), []);
  });
});
