import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { NewAuthorizationCode } from '../../src/storage/authorization-code-store.js';
import { runSharedSuite } from '../support/shared-suite.js';
import { type StoreSuiteOptions, T0, withSecondHandle, withStore } from '../support/store-fixtures.js';

function newCode(fields: Partial<NewAuthorizationCode> = {}): NewAuthorizationCode {
  return {
    digest: createHash('sha256').update(randomBytes(32)).digest(),
    appId: 'app_1',
    userId: 'u1',
    redirectUri: 'https://coach.example/callback',
    codeChallenge: 'c'.repeat(43),
    scope: 'meals:read',
    createdAt: T0,
    expiresAt: T0 + 60_000,
    ...fields,
  };
}

/** Connect's authorization codes (storage/authorization-code-store.ts), the same on every backend: once, for 60 s. */
export function runAuthorizationCodesSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: authorization codes', ({ test }) => {
    test('a code is fresh once, with what it is bound to; then replayed, with the key it gave', async () => {
      await withStore(options, async (storage) => {
        const code = newCode();
        await storage.codes.createAuthorizationCode(code);
        const { digest, ...bound } = code;
        assert.deepEqual(await storage.codes.redeemAuthorizationCode(digest, T0 + 1), { kind: 'fresh', code: bound });
        assert.equal(await storage.codes.recordCodeKey(digest, 'key_1'), false, 'not presented again yet');
        assert.deepEqual(await storage.codes.redeemAuthorizationCode(digest, T0 + 2), {
          kind: 'replayed',
          keyId: 'key_1',
        });
      });
    });

    test('a code presented again before its key is recorded: recording the key says so', async () => {
      await withStore(options, async (storage) => {
        const code = newCode();
        await storage.codes.createAuthorizationCode(code);
        assert.equal((await storage.codes.redeemAuthorizationCode(code.digest, T0 + 1)).kind, 'fresh');
        assert.deepEqual(await storage.codes.redeemAuthorizationCode(code.digest, T0 + 2), {
          kind: 'replayed',
          keyId: null,
        });
        assert.equal(await storage.codes.recordCodeKey(code.digest, 'key_1'), true);
      });
    });

    test('unknown and expired codes; expired ones pruned', async () => {
      await withStore(options, async (storage) => {
        const code = newCode();
        await storage.codes.createAuthorizationCode(code);
        assert.deepEqual(await storage.codes.redeemAuthorizationCode(randomBytes(32), T0), { kind: 'unknown' });
        assert.deepEqual(await storage.codes.redeemAuthorizationCode(code.digest, T0 + 60_000), { kind: 'expired' });
        assert.equal(await storage.codes.pruneAuthorizationCodes(T0 + 60_001), 1);
        assert.deepEqual(await storage.codes.redeemAuthorizationCode(code.digest, T0 + 1), { kind: 'unknown' });
      });
    });

    test('of two redemptions at once on two handles, exactly one is fresh', async () => {
      await withStore(options, async (storage, location) => {
        await withSecondHandle(location, async (second) => {
          for (let round = 0; round < 5; round += 1) {
            const code = newCode();
            await storage.codes.createAuthorizationCode(code);
            const kinds = await Promise.all([
              storage.codes.redeemAuthorizationCode(code.digest, T0 + 1),
              second.codes.redeemAuthorizationCode(code.digest, T0 + 1),
            ]);
            assert.deepEqual(kinds.map((found) => found.kind).sort(), ['fresh', 'replayed']);
          }
        });
      });
    });

    test("an erased user's codes go with the user", async () => {
      await withStore(options, async (storage) => {
        const mine = newCode({ userId: 'leaver' });
        const theirs = newCode({ userId: 'stayer' });
        await storage.codes.createAuthorizationCode(mine);
        await storage.codes.createAuthorizationCode(theirs);
        await storage.erasure.eraseUser('leaver', T0);
        assert.deepEqual(await storage.codes.redeemAuthorizationCode(mine.digest, T0 + 1), { kind: 'unknown' });
        assert.equal((await storage.codes.redeemAuthorizationCode(theirs.digest, T0 + 1)).kind, 'fresh');
      });
    });
  });
}
