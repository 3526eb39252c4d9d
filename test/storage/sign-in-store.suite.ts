import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { runSharedSuite } from '../support/shared-suite.js';
import { type StoreSuiteOptions, T0, withStore } from '../support/store-fixtures.js';

const MINUTE = 60_000;

const digest = () => createHash('sha256').update(randomBytes(32)).digest();

/**
 * The app page's sign-in links and sessions (storage/sign-in-store.ts), the same on every
 * backend: a login token is used up at most once, however many use it at once.
 */
export function runSignInStoreSuite(options: StoreSuiteOptions): void {
  runSharedSuite(options, 'storage: login tokens and sessions', ({ test }) => {
    test('a login token gives its user once, then never again', async () => {
      await withStore(options, async (storage) => {
        const token = digest();
        await storage.signIns.createLoginToken({
          digest: token,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + 15 * MINUTE,
        });
        assert.equal(await storage.signIns.consumeLoginToken(token, T0 + MINUTE), 'u1');
        assert.equal(await storage.signIns.consumeLoginToken(token, T0 + MINUTE), undefined);
      });
    });

    test('of 20 simultaneous uses of one login token exactly one gets the user', async () => {
      await withStore(options, async (storage) => {
        const token = digest();
        await storage.signIns.createLoginToken({
          digest: token,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + 15 * MINUTE,
        });
        const answers = await Promise.all(
          Array.from({ length: 20 }, () => storage.signIns.consumeLoginToken(token, T0)),
        );
        assert.deepEqual(
          answers.filter((answer) => answer !== undefined),
          ['u1'],
        );
      });
    });

    test('an expired login token is refused and gone; an unknown one is refused', async () => {
      await withStore(options, async (storage) => {
        const token = digest();
        await storage.signIns.createLoginToken({
          digest: token,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + 15 * MINUTE,
        });
        assert.equal(await storage.signIns.consumeLoginToken(token, T0 + 15 * MINUTE), undefined);
        assert.equal(await storage.signIns.consumeLoginToken(token, T0), undefined, 'an expired token is used up too');
        assert.equal(await storage.signIns.consumeLoginToken(digest(), T0), undefined);
      });
    });

    test('a session is found until it expires, and not after it is deleted', async () => {
      await withStore(options, async (storage) => {
        const [kept, ended] = [digest(), digest()];
        for (const session of [kept, ended]) {
          await storage.signIns.createSession({
            digest: session,
            userId: 'u1',
            createdAt: T0,
            expiresAt: T0 + 60 * MINUTE,
          });
        }
        assert.deepEqual(await storage.signIns.findSession(kept, T0 + 60 * MINUTE - 1), {
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + 60 * MINUTE,
        });
        assert.equal(await storage.signIns.findSession(kept, T0 + 60 * MINUTE), undefined);
        await storage.signIns.deleteSession(ended);
        await storage.signIns.deleteSession(ended);
        assert.equal(await storage.signIns.findSession(ended, T0), undefined);
        assert.equal(await storage.signIns.findSession(digest(), T0), undefined);
      });
    });

    test("a session's flash is taken once, by one of many takers; a newer one replaces it; sign-out drops it", async () => {
      await withStore(options, async (storage) => {
        const [session, other] = [digest(), digest()];
        const put = (sealed: string, expiresAt = T0 + 10 * MINUTE) =>
          storage.signIns.putSessionFlash({ digest: session, sealed: Buffer.from(sealed), expiresAt });
        await put('first');
        await put('second');
        const taken = await Promise.all(
          Array.from({ length: 20 }, () => storage.signIns.takeSessionFlash(session, T0)),
        );
        assert.deepEqual(taken.filter((flash) => flash !== undefined).map(String), ['second']);
        assert.equal(await storage.signIns.takeSessionFlash(other, T0), undefined, 'each session has its own');

        await put('late', T0 + MINUTE);
        assert.equal(await storage.signIns.takeSessionFlash(session, T0 + MINUTE), undefined, 'expired');
        assert.equal(await storage.signIns.takeSessionFlash(session, T0), undefined, 'and gone');

        await storage.signIns.createSession({
          digest: session,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + 60 * MINUTE,
        });
        await put('signed out');
        await storage.signIns.deleteSession(session);
        assert.equal(await storage.signIns.takeSessionFlash(session, T0), undefined);
      });
    });

    test('a live session is extended, only ever later; an ended or deleted one is not brought back', async () => {
      await withStore(options, async (storage) => {
        const [live, ended, deleted] = [digest(), digest(), digest()];
        for (const session of [live, ended, deleted]) {
          await storage.signIns.createSession({
            digest: session,
            userId: 'u1',
            createdAt: T0,
            expiresAt: T0 + 60 * MINUTE,
          });
        }
        const endOf = async (session: Buffer, now: number) =>
          (await storage.signIns.findSession(session, now))?.expiresAt;
        await storage.signIns.extendSession(live, T0 + 90 * MINUTE, T0 + 30 * MINUTE);
        assert.equal(await endOf(live, T0 + 30 * MINUTE), T0 + 90 * MINUTE);
        await storage.signIns.extendSession(live, T0 + 80 * MINUTE, T0 + 31 * MINUTE);
        assert.equal(await endOf(live, T0 + 31 * MINUTE), T0 + 90 * MINUTE, 'an earlier end does not shorten it');

        await storage.signIns.extendSession(ended, T0 + 120 * MINUTE, T0 + 60 * MINUTE);
        assert.equal(await endOf(ended, T0 + 60 * MINUTE), undefined, 'an ended session stays ended');
        await storage.signIns.deleteSession(deleted);
        await storage.signIns.extendSession(deleted, T0 + 120 * MINUTE, T0);
        assert.equal(await endOf(deleted, T0), undefined);
      });
    });

    test('pruning removes expired login tokens, sessions and flashes only', async () => {
      await withStore(options, async (storage) => {
        const [oldToken, newToken, oldSession, newSession] = [digest(), digest(), digest(), digest()];
        await storage.signIns.createLoginToken({
          digest: oldToken,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + MINUTE,
        });
        await storage.signIns.createLoginToken({
          digest: newToken,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + 9 * MINUTE,
        });
        await storage.signIns.createSession({
          digest: oldSession,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + MINUTE,
        });
        await storage.signIns.createSession({
          digest: newSession,
          userId: 'u1',
          createdAt: T0,
          expiresAt: T0 + 9 * MINUTE,
        });
        await storage.signIns.putSessionFlash({ digest: oldSession, sealed: Buffer.from('x'), expiresAt: T0 + MINUTE });
        await storage.signIns.putSessionFlash({
          digest: newSession,
          sealed: Buffer.from('y'),
          expiresAt: T0 + 9 * MINUTE,
        });
        assert.equal(await storage.signIns.pruneExpiredSignIns(T0 + 2 * MINUTE), 3);
        assert.equal(await storage.signIns.consumeLoginToken(newToken, T0 + 2 * MINUTE), 'u1');
        assert.equal((await storage.signIns.findSession(newSession, T0 + 2 * MINUTE))?.userId, 'u1');
        assert.equal(String(await storage.signIns.takeSessionFlash(newSession, T0 + 2 * MINUTE)), 'y');
      });
    });
  });
}
