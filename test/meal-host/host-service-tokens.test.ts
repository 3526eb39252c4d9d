import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createServiceTokenAuthenticator } from '../../src/keys/service-token-authenticator.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { hostRefusal, useTempMealHost } from '../support/temp-meal-host.js';

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** meal-export/host's service token calls: `service-tokens …` for the app's own code. */
describe('the host module: service tokens', () => {
  const store = useTempMealHost('host-service-tokens');
  let storage: Storage;

  before(async () => {
    storage = await openStorage(store.db);
  });

  after(async () => {
    await storage?.close();
  });

  test('creates a token shown once, lists it without the secret, and revokes it for good', async () => {
    const created = await store.host.createServiceToken({ name: ' billing ' });
    assert.deepEqual(Object.keys(created), ['id', 'token', 'name', 'createdAt']);
    assert.match(created.id, /^svc_[0-9A-Za-z]{16}$/);
    assert.match(created.token, /^mxs_[0-9A-Za-z]{49}$/);
    assert.equal(created.name, 'billing');
    assert.match(created.createdAt, ISO_RE);

    const listed = await store.host.listServiceTokens();
    assert.deepEqual(listed, [
      {
        id: created.id,
        name: 'billing',
        prefix: created.token.slice(0, 12),
        createdAt: created.createdAt,
        lastUsedAt: null,
        revokedAt: null,
      },
    ]);
    assert.equal(JSON.stringify(listed).includes(created.token.slice(12)), false);

    // Another instance on the same store authenticates with it, until the host revokes it.
    const auth = createServiceTokenAuthenticator(storage.serviceTokens);
    assert.equal((await auth.authenticate(created.token, Date.now()))?.id, created.id);
    await auth.settled();
    assert.equal(await store.host.revokeServiceToken(created.id), true);
    // Trusted for half a second after its last lookup: refused within 1 s.
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(await auth.authenticate(created.token, Date.now()), undefined);
    const [revoked] = await store.host.listServiceTokens();
    assert.match(revoked?.revokedAt ?? '', ISO_RE);
    assert.match(revoked?.lastUsedAt ?? '', ISO_RE);
    assert.equal(await store.host.revokeServiceToken(created.id), true, 'revoking again is no failure');
    assert.equal(await store.host.revokeServiceToken('svc_unknown'), false);
  });

  test('refuses a blank or too long name as invalid_argument, making no token', async () => {
    const before = (await store.host.listServiceTokens()).length;
    await assert.rejects(store.host.createServiceToken({ name: '  ' }), hostRefusal('invalid_argument'));
    await assert.rejects(store.host.createServiceToken({ name: 'x'.repeat(101) }), hostRefusal('invalid_argument'));
    assert.equal((await store.host.listServiceTokens()).length, before);
  });
});
