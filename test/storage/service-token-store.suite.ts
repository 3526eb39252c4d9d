import assert from 'node:assert/strict';
import type { NewServiceToken } from '../../src/domain/service-token-records.js';
import {
  digestServiceToken,
  generateServiceToken,
  newServiceTokenId,
  serviceTokenDisplayPrefix,
} from '../../src/domain/service-token.js';
import { runSharedSuite } from '../support/shared-suite.js';
import { type StoreSuiteOptions, T0, withSecondHandle, withStore } from '../support/store-fixtures.js';

const MINUTE = 60_000;

/** A new service token, created at T0 unless told. */
function newToken(name: string, fields: Partial<NewServiceToken> = {}): NewServiceToken {
  const token = generateServiceToken();
  return {
    id: newServiceTokenId(),
    name,
    prefix: serviceTokenDisplayPrefix(token),
    digest: digestServiceToken(token),
    createdAt: T0,
    ...fields,
  };
}

/**
 * The host API's service tokens (storage/service-token-store.ts), the same on every backend:
 * digests only, a revocation seen at once by every handle, lastUsedAt never moving back.
 */
export function runServiceTokenStoreSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: service tokens', ({ test }) => {
    test('stores a token and finds it by digest, with no plain token or digest in the record', async () => {
      await withStore(options, async (storage) => {
        const token = newToken('billing');
        const expected = {
          id: token.id,
          name: 'billing',
          prefix: token.prefix,
          createdAt: T0,
          lastUsedAt: null,
          revokedAt: null,
        };
        assert.deepEqual(await storage.serviceTokens.createServiceToken(token), expected);
        assert.deepEqual(await storage.serviceTokens.findServiceTokenByDigest(token.digest), expected);
        assert.deepEqual(await storage.serviceTokens.listServiceTokens(), [expected]);
        const unknown = digestServiceToken(generateServiceToken());
        assert.equal(await storage.serviceTokens.findServiceTokenByDigest(unknown), undefined);
      });
    });

    test('lists every token oldest first, revoked ones included; none in a new store', async () => {
      await withStore(options, async (storage) => {
        assert.deepEqual(await storage.serviceTokens.listServiceTokens(), []);
        const later = newToken('later', { createdAt: T0 + MINUTE });
        const earlier = newToken('earlier');
        await storage.serviceTokens.createServiceToken(later);
        await storage.serviceTokens.createServiceToken(earlier);
        await storage.serviceTokens.revokeServiceToken(earlier.id, T0 + 2 * MINUTE);
        const listed = await storage.serviceTokens.listServiceTokens();
        assert.deepEqual(
          listed.map((token) => [token.name, token.revokedAt]),
          [
            ['earlier', T0 + 2 * MINUTE],
            ['later', null],
          ],
        );
      });
    });

    test('a revocation keeps its first time, is found by digest revoked, and an unknown id is undefined', async () => {
      await withStore(options, async (storage) => {
        const token = newToken('ops');
        await storage.serviceTokens.createServiceToken(token);
        const revoked = await storage.serviceTokens.revokeServiceToken(token.id, T0 + MINUTE);
        assert.equal(revoked?.revokedAt, T0 + MINUTE);
        const again = await storage.serviceTokens.revokeServiceToken(token.id, T0 + 5 * MINUTE);
        assert.equal(again?.revokedAt, T0 + MINUTE, 'idempotent: the first revokedAt is kept');
        assert.equal((await storage.serviceTokens.findServiceTokenByDigest(token.digest))?.revokedAt, T0 + MINUTE);
        assert.equal(await storage.serviceTokens.revokeServiceToken('svc_unknown', T0), undefined);
      });
    });

    test('lastUsedAt moves forward only, whatever order the uses are recorded in', async () => {
      await withStore(options, async (storage) => {
        const token = newToken('app');
        const other = newToken('other');
        await storage.serviceTokens.createServiceToken(token);
        await storage.serviceTokens.createServiceToken(other);
        const lastUsed = async () => (await storage.serviceTokens.findServiceTokenByDigest(token.digest))?.lastUsedAt;
        await storage.serviceTokens.touchServiceToken(token.id, T0 + 2 * MINUTE);
        assert.equal(await lastUsed(), T0 + 2 * MINUTE);
        await storage.serviceTokens.touchServiceToken(token.id, T0 + MINUTE);
        assert.equal(await lastUsed(), T0 + 2 * MINUTE, 'an older use does not move it back');
        await storage.serviceTokens.touchServiceToken(token.id, T0 + 3 * MINUTE);
        assert.equal(await lastUsed(), T0 + 3 * MINUTE);
        assert.equal((await storage.serviceTokens.findServiceTokenByDigest(other.digest))?.lastUsedAt, null);
        await storage.serviceTokens.touchServiceToken('svc_unknown', T0);
      });
    });

    test('another handle on the store (another instance) sees a new token and its revocation at once', async () => {
      await withStore(options, async (storage, location) => {
        const token = newToken('shared');
        await withSecondHandle(location, async (second) => {
          await storage.serviceTokens.createServiceToken(token);
          assert.equal((await second.serviceTokens.findServiceTokenByDigest(token.digest))?.revokedAt, null);
          await storage.serviceTokens.revokeServiceToken(token.id, T0 + MINUTE);
          assert.equal((await second.serviceTokens.findServiceTokenByDigest(token.digest))?.revokedAt, T0 + MINUTE);
        });
      });
    });

    test('a digest is stored once: a second token with the same digest is refused, the first kept', async () => {
      await withStore(options, async (storage) => {
        const token = newToken('first');
        await storage.serviceTokens.createServiceToken(token);
        await assert.rejects(storage.serviceTokens.createServiceToken(newToken('second', { digest: token.digest })));
        const listed = await storage.serviceTokens.listServiceTokens();
        assert.deepEqual(
          listed.map((record) => record.name),
          ['first'],
        );
      });
    });
  });
}
