import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateApiKey } from '../../src/domain/api-key.js';
import { generateServiceToken } from '../../src/domain/service-token.js';
import { issueServiceToken } from '../../src/keys/issue-service-token.js';
import {
  createServiceTokenAuthenticator,
  type ServiceTokenAuthenticatorOptions,
} from '../../src/keys/service-token-authenticator.js';
import type { ServiceTokenStore } from '../../src/storage/service-token-store.js';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { makeTempDir } from '../support/project.js';

const T0 = Date.UTC(2025, 5, 10, 12);
const MINUTE = 60_000;

type AuthenticatorStore = Pick<ServiceTokenStore, 'findServiceTokenByDigest' | 'touchServiceToken'>;

/** The real store with its calls counted (a spy on the real thing), and touch replaceable. */
interface CountingStore extends AuthenticatorStore {
  lookups: number;
  touches: [string, number][];
}

function counting(store: ServiceTokenStore, touch?: AuthenticatorStore['touchServiceToken']): CountingStore {
  const counted: CountingStore = {
    lookups: 0,
    touches: [],
    findServiceTokenByDigest(digest) {
      counted.lookups += 1;
      return store.findServiceTokenByDigest(digest);
    },
    touchServiceToken(id, at) {
      counted.touches.push([id, at]);
      return (touch ?? ((i, a) => store.touchServiceToken(i, a)))(id, at);
    },
  };
  return counted;
}

describe('the service token authenticator over a real SQLite store', () => {
  const temp = makeTempDir('service-token-auth');
  const file = path.join(temp.dir, 'store.db');
  let storage: Storage;
  const callerClock: ServiceTokenAuthenticatorOptions = { clock: 'caller' };

  before(async () => {
    storage = await openSqliteStorage(file);
  });

  after(async () => {
    await storage.close();
    temp.remove();
  });

  async function issue(name = 'app') {
    const issued = await issueServiceToken(storage.serviceTokens, name, T0);
    assert.ok(issued.ok);
    return issued;
  }

  test('a token authenticates as its record; malformed text is refused with no lookup', async () => {
    const { token, record } = await issue();
    const store = counting(storage.serviceTokens);
    const auth = createServiceTokenAuthenticator(store, callerClock);
    assert.deepEqual(await auth.authenticate(token, T0 + 1), record);
    assert.equal(store.lookups, 1);
    assert.deepEqual(await auth.authenticate(token, T0 + 400), record);
    assert.equal(store.lookups, 1, 'trusted without a lookup within 500 ms of the last');
    const typo = `${token.slice(0, 10)}${token[10] === 'a' ? 'b' : 'a'}${token.slice(11)}`;
    for (const bad of [
      '',
      'Bearer',
      typo,
      token.slice(0, -1),
      `${token} `,
      generateApiKey(),
      `mxk_${token.slice(4)}`,
    ]) {
      assert.equal(await auth.authenticate(bad, T0 + 1), undefined, bad);
    }
    assert.equal(store.lookups, 1, 'no lookup for any of them');
    assert.equal(await auth.authenticate(generateServiceToken(), T0 + 1), undefined, 'well formed, unknown');
    assert.equal(store.lookups, 2);
  });

  test('a revoked token is refused once its half second of trust is over, on this handle or another', async () => {
    const [one, two] = [await issue('one'), await issue('two')];
    const auth = createServiceTokenAuthenticator(storage.serviceTokens, callerClock);
    assert.ok(await auth.authenticate(one.token, T0));
    await storage.serviceTokens.revokeServiceToken(one.record.id, T0 + 1);
    assert.ok(await auth.authenticate(one.token, T0 + 2), 'still trusted: no lookup within 500 ms');
    assert.equal(await auth.authenticate(one.token, T0 + 500), undefined, 'refused within 1 s of the revocation');

    // Another instance: its own handle on the same file, revoking while this one serves.
    assert.ok(await auth.authenticate(two.token, T0));
    const other = await openSqliteStorage(file);
    try {
      await other.serviceTokens.revokeServiceToken(two.record.id, T0 + 1);
    } finally {
      await other.close();
    }
    assert.equal(await auth.authenticate(two.token, T0 + 500), undefined);
    await auth.settled();
  });

  test('lastUsedAt is written at the first use, then at most once a minute per token', async () => {
    const [a, b] = [await issue('a'), await issue('b')];
    const store = counting(storage.serviceTokens);
    const auth = createServiceTokenAuthenticator(store, callerClock);
    for (let s = 0; s < 60; s += 1) assert.ok(await auth.authenticate(a.token, T0 + s * 1000));
    assert.ok(await auth.authenticate(b.token, T0 + 30_000));
    await auth.settled();
    assert.deepEqual(store.touches, [
      [a.record.id, T0],
      [b.record.id, T0 + 30_000],
    ]);
    assert.ok(await auth.authenticate(a.token, T0 + MINUTE));
    await auth.settled();
    assert.deepEqual(store.touches.at(-1), [a.record.id, T0 + MINUTE]);
    assert.equal(
      (await storage.serviceTokens.listServiceTokens()).find((t) => t.id === a.record.id)?.lastUsedAt,
      T0 + MINUTE,
    );
  });

  test('the request never waits for the lastUsedAt write', async () => {
    const { token, record } = await issue();
    let finish = () => {};
    const hanging = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const auth = createServiceTokenAuthenticator(
      counting(storage.serviceTokens, () => hanging),
      callerClock,
    );
    assert.deepEqual(await auth.authenticate(token, T0), record);
    let settled = false;
    const waiting = auth.settled().then(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'the write is still going on');
    finish();
    await waiting;
  });

  test('a failed lastUsedAt write is reported, never unhandled, and the request still answers', async () => {
    const { token, record } = await issue();
    const failures: unknown[] = [];
    const failing = () => Promise.reject(new Error('SQLITE_BUSY'));
    const reported = createServiceTokenAuthenticator(counting(storage.serviceTokens, failing), {
      ...callerClock,
      onTouchFailure: (error) => failures.push(error),
    });
    assert.deepEqual(await reported.authenticate(token, T0), record);
    await reported.settled();
    assert.equal(failures.length, 1);

    const throwing = () => {
      throw new Error('closed');
    };
    const silent = createServiceTokenAuthenticator(counting(storage.serviceTokens, throwing), {
      ...callerClock,
      onTouchFailure: () => {
        throw new Error('a reporter that throws');
      },
    });
    assert.deepEqual(await silent.authenticate(token, T0), record);
    await silent.settled();
    const quiet = createServiceTokenAuthenticator(counting(storage.serviceTokens, failing), callerClock);
    assert.deepEqual(await quiet.authenticate(token, T0), record);
    await quiet.settled();
  });
});
