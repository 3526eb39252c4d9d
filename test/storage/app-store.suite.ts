import assert from 'node:assert/strict';
import type { NewApp } from '../../src/domain/app-records.js';
import { digestAppSecret, generateAppSecret, newAppId } from '../../src/domain/app-secret.js';
import { runSharedSuite } from '../support/shared-suite.js';
import { newKey, type StoreSuiteOptions, T0, withSecondHandle, withStore } from '../support/store-fixtures.js';

const MINUTE = 60_000;

/** A new app, registered at T0 unless told. */
function newApp(name: string, fields: Partial<NewApp> = {}): NewApp {
  return {
    id: newAppId(),
    name,
    redirectUris: ['https://coach.example/cb', 'http://127.0.0.1:8765/cb'],
    homepageUrl: 'https://coach.example',
    secretDigest: digestAppSecret(generateAppSecret()),
    createdAt: T0,
    ...fields,
  };
}

/**
 * Apps registered by the operator (storage/app-store.ts), the same on every backend: secrets as
 * digests, a rotation that stops the old secret at once, a deletion that revokes the app's keys
 * in its transaction, and one key per app and person within the 10-key limit, exact under
 * concurrent grants.
 */
export function runAppStoreSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: apps', ({ test }) => {
    test('stores an app and finds it by id and by secret digest, with no digest in the record', async () => {
      await withStore(options, async (storage) => {
        const app = newApp('Coach');
        const expected = {
          id: app.id,
          name: 'Coach',
          redirectUris: ['https://coach.example/cb', 'http://127.0.0.1:8765/cb'],
          homepageUrl: 'https://coach.example',
          createdAt: T0,
          secretRotatedAt: null,
        };
        assert.deepEqual(await storage.apps.createApp(app), expected);
        assert.deepEqual(await storage.apps.findApp(app.id), expected);
        assert.deepEqual(await storage.apps.findAppBySecretDigest(app.secretDigest), expected);
        assert.equal(await storage.apps.findApp('app_unknown'), undefined);
        assert.equal(await storage.apps.findAppBySecretDigest(digestAppSecret(generateAppSecret())), undefined);
        const bare = newApp('Bare', { homepageUrl: null, redirectUris: ['https://b.example/ä?x=1'] });
        const stored = await storage.apps.createApp(bare);
        assert.equal(stored.homepageUrl, null);
        assert.deepEqual(stored.redirectUris, ['https://b.example/ä?x=1'], 'kept character for character');
      });
    });

    test('lists every app oldest first; none in a new store', async () => {
      await withStore(options, async (storage) => {
        assert.deepEqual(await storage.apps.listApps(), []);
        await storage.apps.createApp(newApp('later', { createdAt: T0 + MINUTE }));
        await storage.apps.createApp(newApp('earlier'));
        assert.deepEqual(
          (await storage.apps.listApps()).map((app) => app.name),
          ['earlier', 'later'],
        );
      });
    });

    test('a secret digest is stored once: a second app with the same digest is refused, the first kept', async () => {
      await withStore(options, async (storage) => {
        const app = newApp('first');
        await storage.apps.createApp(app);
        await assert.rejects(storage.apps.createApp(newApp('second', { secretDigest: app.secretDigest })));
        assert.deepEqual(
          (await storage.apps.listApps()).map((record) => record.name),
          ['first'],
        );
      });
    });

    test('a rotation replaces the digest: the old secret finds nothing at once, on another handle too', async () => {
      await withStore(options, async (storage, location) => {
        const app = newApp('Coach');
        await storage.apps.createApp(app);
        const digest = digestAppSecret(generateAppSecret());
        await withSecondHandle(location, async (second) => {
          assert.equal((await second.apps.findAppBySecretDigest(app.secretDigest))?.id, app.id);
          const rotated = await storage.apps.rotateAppSecret(app.id, digest, T0 + MINUTE);
          assert.equal(rotated?.secretRotatedAt, T0 + MINUTE);
          assert.equal(await second.apps.findAppBySecretDigest(app.secretDigest), undefined);
          assert.equal((await second.apps.findAppBySecretDigest(digest))?.id, app.id);
        });
        assert.equal(await storage.apps.rotateAppSecret('app_unknown', digest, T0), undefined);
      });
    });

    test('deleting an app revokes every active key issued through it, and no other key', async () => {
      await withStore(options, async (storage) => {
        const [app, other] = [newApp('Coach'), newApp('Other')];
        await storage.apps.createApp(app);
        await storage.apps.createApp(other);
        const u1 = await storage.apps.issueAppKey(newKey('u1'), app.id, 10, T0);
        const u2 = await storage.apps.issueAppKey(newKey('u2'), app.id, 10, T0);
        const others = await storage.apps.issueAppKey(newKey('u1'), other.id, 10, T0);
        const own = newKey('u1');
        await storage.keys.createApiKey(own, 10, T0);
        assert.ok(u1.ok && u2.ok && others.ok);
        await storage.keys.revokeApiKey(u2.key.id, T0 + 1);
        assert.deepEqual(await storage.apps.deleteApp(app.id, T0 + MINUTE), { revokedKeys: 1 });
        const revokedAt = new Map((await storage.keys.listApiKeys('u1')).map((key) => [key.id, key.revokedAt]));
        assert.equal(revokedAt.get(u1.key.id), T0 + MINUTE);
        assert.equal(revokedAt.get(others.key.id), null, "another app's key");
        assert.equal(revokedAt.get(own.id), null, "the person's own key");
        const [u2Key] = await storage.keys.listApiKeys('u2');
        assert.equal(u2Key?.revokedAt, T0 + 1, 'a key revoked before keeps its time');
        assert.equal(u2Key?.appId, app.id, 'a key still says which app it was granted to');
        assert.equal(await storage.apps.findApp(app.id), undefined);
        assert.equal(await storage.apps.findAppBySecretDigest(app.secretDigest), undefined);
        assert.equal(await storage.apps.deleteApp(app.id, T0 + 2 * MINUTE), undefined, 'gone');
        const late = await storage.apps.issueAppKey(newKey('u3'), app.id, 10, T0 + 2 * MINUTE);
        assert.deepEqual(late, { ok: false, reason: 'unknown_app' });
      });
    });

    test("a new grant revokes the app's earlier key for that person, and only that one", async () => {
      await withStore(options, async (storage) => {
        const app = newApp('Coach');
        await storage.apps.createApp(app);
        const first = await storage.apps.issueAppKey(newKey('u1'), app.id, 10, T0);
        const theirs = await storage.apps.issueAppKey(newKey('u2'), app.id, 10, T0);
        assert.ok(first.ok && theirs.ok);
        assert.equal(first.replaced, null);
        assert.equal(first.key.appId, app.id);
        const second = await storage.apps.issueAppKey(
          newKey('u1', { createdAt: T0 + MINUTE }),
          app.id,
          10,
          T0 + MINUTE,
        );
        assert.ok(second.ok);
        assert.equal(second.replaced, first.key.id);
        const keys = await storage.keys.listApiKeys('u1');
        assert.deepEqual(
          keys.map((key) => [key.id, key.revokedAt, key.appId]),
          [
            [first.key.id, T0 + MINUTE, app.id],
            [second.key.id, null, app.id],
          ],
        );
        assert.equal((await storage.keys.listApiKeys('u2'))[0]?.revokedAt, null, "another person's key");
        const again = await storage.apps.issueAppKey(newKey('u1', { id: second.key.id }), app.id, 10, T0);
        assert.deepEqual(again, { ok: false, reason: 'duplicate_id' });
      });
    });

    test("10 active keys: the app's earlier key makes room for its new one; otherwise too_many_keys, nothing changed", async () => {
      await withStore(options, async (storage) => {
        const [app, other] = [newApp('Coach'), newApp('Other')];
        await storage.apps.createApp(app);
        await storage.apps.createApp(other);
        for (let i = 0; i < 9; i += 1) await storage.keys.createApiKey(newKey('u1'), 10, T0);
        const first = await storage.apps.issueAppKey(newKey('u1'), app.id, 10, T0);
        assert.ok(first.ok, 'the 10th key');
        const replacing = await storage.apps.issueAppKey(newKey('u1'), app.id, 10, T0 + 1);
        assert.ok(replacing.ok, 'replaces the app key: still 10');
        const refused = await storage.apps.issueAppKey(newKey('u1'), other.id, 10, T0 + 2);
        assert.deepEqual(refused, { ok: false, reason: 'too_many_keys' });
        const keys = await storage.keys.listApiKeys('u1');
        assert.equal(keys.filter((key) => key.revokedAt === null).length, 10);
        assert.equal(keys.find((key) => key.id === replacing.key.id)?.revokedAt, null, 'nothing revoked by a refusal');
      });
    });

    test('grants and key creations for one user from two instances at once fill 10 active keys exactly, one per app at most', async () => {
      await withStore(options, async (storage, location) => {
        const apps = [newApp('a'), newApp('b'), newApp('c')];
        for (const app of apps) await storage.apps.createApp(app);
        for (let i = 0; i < 5; i += 1) await storage.keys.createApiKey(newKey('u1'), 10, T0);
        await withSecondHandle(location, async (second) => {
          const attempts = Array.from({ length: 24 }, (_, i) => {
            const handle = i % 2 === 0 ? storage : second;
            const app = apps[i % 4];
            return app === undefined
              ? handle.keys.createApiKey(newKey('u1', { name: `k${i}` }), 10, T0)
              : handle.apps.issueAppKey(newKey('u1', { name: `a${i}` }), app.id, 10, T0);
          });
          await Promise.all(attempts);
          const active = (await storage.keys.listApiKeys('u1')).filter((key) => key.revokedAt === null);
          assert.equal(active.length, 10);
          for (const app of apps) {
            assert.ok(
              active.filter((key) => key.appId === app.id).length <= 1,
              `one active key of ${app.name} at most`,
            );
          }
        });
      });
    });

    test('an app deleted while keys are granted through it on another instance leaves no active key of it', async () => {
      await withStore(options, async (storage, location) => {
        const app = newApp('Coach');
        await storage.apps.createApp(app);
        await withSecondHandle(location, async (second) => {
          const grants = Array.from({ length: 8 }, (_, i) =>
            second.apps.issueAppKey(newKey(`u${i}`), app.id, 10, T0).catch(() => undefined),
          );
          const deleted = storage.apps.deleteApp(app.id, T0 + MINUTE);
          await Promise.all([...grants, deleted]);
        });
        for (let i = 0; i < 8; i += 1) {
          const keys = await storage.keys.listApiKeys(`u${i}`);
          assert.deepEqual(
            keys.filter((key) => key.revokedAt === null),
            [],
            `u${i}`,
          );
        }
      });
    });
  });
}
