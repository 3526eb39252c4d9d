import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { digestApiKey, displayPrefix, generateApiKey } from '../../src/domain/api-key.js';
import { digestAppSecret, isWellFormedAppSecret } from '../../src/domain/app-secret.js';
import { MAX_ACTIVE_KEYS, newKeyId } from '../../src/domain/key-request.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { cliJson, runCli } from '../support/cli.js';
import { type HostApiServer, hostCall, startHostApiServer } from '../support/host-api.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { newPostgresDatabase, postgresSkipReason, type TestPostgresStore } from '../support/postgres.js';
import { getMeals, newUserId } from '../support/server.js';

// Apps registered by the operator (docs/host-api.md#apps-connect) over real HTTPS, on a served
// SQLite file and on PostgreSQL with two instances: the host API, `apps …` and the store agree,
// secrets are shown once and kept as digests, and deleting an app refuses its keys within 1 s.

const APPS = '/host/v1/apps';
const URIS = ['https://coach.example/oauth/callback', 'http://127.0.0.1:8765/cb'];

interface CreatedApp {
  readonly id: string;
  readonly name: string;
  readonly redirectUris: string[];
  readonly homepageUrl: string | null;
  readonly createdAt: string;
  readonly clientSecret: string;
}

/** A key of the user granted through the app, as the token step will issue it: the key itself. */
async function grantKey(store: Storage, appId: string, userId: string): Promise<{ id: string; key: string }> {
  const key = generateApiKey();
  const id = newKeyId();
  const now = Date.now();
  const issued = await store.apps.issueAppKey(
    {
      id,
      userId,
      name: 'Coach',
      prefix: displayPrefix(key),
      digest: digestApiKey(key),
      createdAt: now,
      expiresAt: null,
    },
    appId,
    MAX_ACTIVE_KEYS,
    now,
  );
  assert.ok(issued.ok, JSON.stringify(issued));
  return { id, key };
}

/** Polls /v1/meals with the key until it is refused; the time that took (ms). */
async function refusedWithin(server: HostApiServer, key: string): Promise<number> {
  const started = performance.now();
  let status = (await getMeals(server, key, { lastModifiedSince: '2000-01-01' })).status;
  while (status !== 401 && performance.now() - started < 3_000) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = (await getMeals(server, key, { lastModifiedSince: '2000-01-01' })).status;
  }
  assert.equal(status, 401, 'the key is refused');
  return performance.now() - started;
}

function appRules(name: string, open: () => { server: HostApiServer; other: HostApiServer; store: Storage }) {
  describe(`${name}: apps over the host API`, () => {
    test('registers an app: 201 with its secret once, stored as a digest, never listed or logged', async () => {
      const { server, store } = open();
      const body = { name: '  Coach Pro ', redirectUris: URIS, homepageUrl: 'https://coach.example' };
      const res = await hostCall(server, { method: 'POST', path: APPS, json: body });
      assert.equal(res.status, 201, res.text);
      const created = res.json as CreatedApp;
      assert.deepEqual(Object.keys(created), [
        'id',
        'name',
        'redirectUris',
        'homepageUrl',
        'createdAt',
        'clientSecret',
      ]);
      assert.match(created.id, /^app_[0-9A-Za-z]{16}$/);
      assert.equal(created.name, 'Coach Pro', 'trimmed');
      assert.deepEqual(created.redirectUris, URIS);
      assert.ok(isWellFormedAppSecret(created.clientSecret));
      assert.equal((await store.apps.findAppBySecretDigest(digestAppSecret(created.clientSecret)))?.id, created.id);
      const { clientSecret, ...shown } = created;
      const one = await hostCall(server, { path: `${APPS}/${created.id}` });
      assert.deepEqual(one.json, shown);
      const list = await hostCall(server, { path: APPS });
      assert.ok((list.json as unknown[]).some((app) => JSON.stringify(app) === JSON.stringify(shown)));
      assert.ok(!list.text.includes(clientSecret.slice(4)));
      assert.ok(!server.logs().includes(clientSecret.slice(4)), 'no secret in the log');
      const bare = await hostCall(server, { method: 'POST', path: APPS, json: { name: 'B', redirectUris: [URIS[0]] } });
      assert.equal((bare.json as CreatedApp).homepageUrl, null);
    });

    test('refuses a registration with 422 invalid_record naming the field at fault; nothing stored', async () => {
      const { server } = open();
      const before = ((await hostCall(server, { path: APPS })).json as unknown[]).length;
      for (const [body, param] of [
        [{ name: 'C', redirectUris: ['http://coach.example/cb'] }, 'redirectUris'],
        [{ name: 'C', redirectUris: ['https://coach.example/cb#x'] }, 'redirectUris'],
        [{ name: 'C', redirectUris: [] }, 'redirectUris'],
        [{ name: 'C', redirectUris: Array.from({ length: 11 }, (_, i) => `https://c.example/${i}`) }, 'redirectUris'],
        [{ name: 'C', redirectUris: [`https://c.example/${'a'.repeat(2048)}`] }, 'redirectUris'],
        [{ name: 'C' }, 'redirectUris'],
        [{ name: '', redirectUris: URIS }, 'name'],
        [{ name: 'x'.repeat(101), redirectUris: URIS }, 'name'],
        [{ name: 'C', redirectUris: URIS, homepageUrl: 'http://coach.example' }, 'homepageUrl'],
        [{ name: 'C', redirectUris: URIS, clientSecret: 'mine' }, 'clientSecret'],
      ] as const) {
        const res = await hostCall(server, { method: 'POST', path: APPS, json: body });
        assert.equal(res.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
        assert.deepEqual(
          [
            (res.json as { error: { code: string; param: string } }).error.code,
            (res.json as { error: { param: string } }).error.param,
          ],
          ['invalid_record', param],
        );
      }
      assert.equal(((await hostCall(server, { path: APPS })).json as unknown[]).length, before);
    });

    test('rotating the secret stops the old one at once; unknown ids are 404 not_found', async () => {
      const { server, store } = open();
      const created = (await hostCall(server, { method: 'POST', path: APPS, json: { name: 'R', redirectUris: URIS } }))
        .json as CreatedApp;
      const res = await hostCall(server, { method: 'POST', path: `${APPS}/${created.id}/rotate-secret` });
      assert.equal(res.status, 200, res.text);
      const rotated = res.json as { id: string; clientSecret: string };
      assert.deepEqual(Object.keys(rotated), ['id', 'clientSecret']);
      assert.equal(rotated.id, created.id);
      assert.ok(isWellFormedAppSecret(rotated.clientSecret));
      assert.equal(await store.apps.findAppBySecretDigest(digestAppSecret(created.clientSecret)), undefined);
      assert.equal((await store.apps.findAppBySecretDigest(digestAppSecret(rotated.clientSecret)))?.id, created.id);
      for (const [method, path] of [
        ['GET', `${APPS}/app_none`],
        ['DELETE', `${APPS}/app_none`],
        ['POST', `${APPS}/app_none/rotate-secret`],
      ] as const) {
        const unknown = await hostCall(server, { method, path });
        assert.equal(unknown.status, 404, `${method} ${path}`);
        assert.equal((unknown.json as { error: { code: string } }).error.code, 'not_found');
      }
    });

    test('keys show the app they were granted to; deleting the app refuses them on another instance within 1 s', async () => {
      const { server, other, store } = open();
      const created = (await hostCall(server, { method: 'POST', path: APPS, json: { name: 'D', redirectUris: URIS } }))
        .json as CreatedApp;
      const userId = newUserId('apps');
      const own = (await hostCall(server, { method: 'POST', path: `/host/v1/users/${userId}/keys` })).json as {
        key: string;
      };
      const granted = await grantKey(store, created.id, userId);
      assert.equal((await getMeals(other, granted.key, { lastModifiedSince: '2000-01-01' })).status, 200);
      const listed = (await hostCall(server, { path: `/host/v1/users/${userId}/keys` })).json as { appId: unknown }[];
      assert.deepEqual(listed.map((key) => key.appId).sort(), [created.id, null].sort());
      const cli = await cliJson(['keys', 'list', '--user', userId, '--db', server.db, '--json']);
      assert.deepEqual(cli, listed, 'keys list --json says the same');
      const res = await hostCall(server, { method: 'DELETE', path: `${APPS}/${created.id}` });
      assert.deepEqual([res.status, res.json], [200, { id: created.id, deleted: true }]);
      const ms = await refusedWithin(other, granted.key);
      assert.ok(ms < 1_000, `refused after ${Math.round(ms)} ms`);
      assert.equal((await getMeals(other, own.key, { lastModifiedSince: '2000-01-01' })).status, 200, 'own key works');
      assert.equal((await hostCall(server, { path: `${APPS}/${created.id}` })).status, 404);
    });

    test('apps create, list, rotate-secret and delete answer the host API bodies; a bad URI is a usage error', async () => {
      const { server } = open();
      const db = ['--db', server.db, '--json'];
      const uris = URIS.flatMap((uri) => ['--redirect-uri', uri]);
      const made = await cliJson<CreatedApp>([
        'apps',
        'create',
        '--name',
        'Cli',
        ...uris,
        '--homepage',
        'https://c.example',
        ...db,
      ]);
      assert.deepEqual(made.redirectUris, URIS);
      const { clientSecret: _secret, ...shown } = made;
      assert.deepEqual((await hostCall(server, { path: `${APPS}/${made.id}` })).json, shown);
      const listed = await cliJson<unknown[]>(['apps', 'list', ...db]);
      assert.deepEqual(listed, (await hostCall(server, { path: APPS })).json);
      const rotated = await cliJson<{ id: string; clientSecret: string }>(['apps', 'rotate-secret', made.id, ...db]);
      assert.equal(rotated.id, made.id);
      assert.ok(isWellFormedAppSecret(rotated.clientSecret) && rotated.clientSecret !== made.clientSecret);
      assert.deepEqual(await cliJson(['apps', 'delete', made.id, ...db]), { id: made.id, deleted: true });
      const again = await runCli(['apps', 'delete', made.id, ...db]);
      assert.notEqual(again.code, 0);
      const bad = await runCli(['apps', 'create', '--name', 'X', '--redirect-uri', 'http://c.example/', ...db]);
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, /--redirect-uri: A redirect URI is an https:\/\/ URL/);
    });
  });
}

describe('apps on SQLite', () => {
  let server: HostApiServer | undefined;
  let store: Storage | undefined;

  before(async () => {
    server = await startHostApiServer({}, startInProcessServer);
    store = await openStorage(server.db);
  });

  after(async () => {
    await store?.close();
    await server?.stop();
  });

  appRules('SQLite', () => {
    assert.ok(server !== undefined && store !== undefined, 'the server started');
    return { server, other: server, store };
  });
});

const skip = await postgresSkipReason();

describe('apps on PostgreSQL', { skip: skip ?? false }, () => {
  let database: TestPostgresStore | undefined;
  let first: HostApiServer | undefined;
  let second: HostApiServer | undefined;
  let store: Storage | undefined;

  before(async () => {
    database = await newPostgresDatabase('host_apps');
    first = await startHostApiServer({ db: database.url });
    second = await startHostApiServer({ db: database.url });
    store = await openStorage(database.url);
  });

  after(async () => {
    await store?.close();
    await Promise.all([first?.stop(), second?.stop()]);
    await database?.remove();
  });

  appRules('PostgreSQL', () => {
    assert.ok(first !== undefined && second !== undefined && store !== undefined, 'the servers started');
    return { server: first, other: second, store };
  });
});
