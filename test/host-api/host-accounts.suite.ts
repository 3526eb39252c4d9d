import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cliJson } from '../support/cli.js';
import { type HostApiServer, hostCall } from '../support/host-api.js';
import { getMeals, newUserId } from '../support/server.js';

function keysPath(userId: string): string {
  return `/host/v1/users/${encodeURIComponent(userId)}/keys`;
}

function webhooksPath(userId: string): string {
  return `/host/v1/users/${encodeURIComponent(userId)}/webhooks`;
}

function errorCode(body: unknown): string | undefined {
  return (body as { error?: { code?: string } }).error?.code;
}

/** Keys, webhook endpoints and sign-in links over the host API, with the commands' bodies, on the store `open` serves. */
export function hostAccountRules(name: string, open: () => HostApiServer) {
  describe(`${name}: keys, webhooks, sign-in links`, () => {
    test('keys: created (the key works on the public listener), listed as keys list shows them, revoked', async () => {
      const server = open();
      const userId = newUserId('keys');
      const res = await hostCall(server, {
        method: 'POST',
        path: keysPath(userId),
        json: { name: 'shop', expiresIn: '30d' },
      });
      assert.equal(res.status, 201, res.text);
      const created = res.json as { id: string; key: string; expiresAt: string };
      assert.deepEqual(Object.keys(created), ['id', 'key', 'userId', 'name', 'createdAt', 'expiresAt']);
      assert.ok(Date.parse(created.expiresAt) > Date.now() + 29 * 86_400_000);
      // Listed before its first use, whose lastUsedAt is written in the background.
      const listed = (await hostCall(server, { path: keysPath(userId) })).json;
      const cli = await cliJson(['keys', 'list', '--user', userId, '--db', server.db, '--json']);
      assert.deepEqual(listed, cli, 'the body of keys list --json');
      const page = await getMeals(server, created.key, { lastModifiedSince: '2000-01-01T00:00:00Z' });
      assert.equal(page.status, 200, 'the key works');
      const revoked = await hostCall(server, { method: 'DELETE', path: `/host/v1/keys/${created.id}` });
      assert.deepEqual(revoked.json, { id: created.id, revoked: true });
      assert.equal((await hostCall(server, { method: 'DELETE', path: '/host/v1/keys/key_unknown' })).status, 404);
      const bare = await hostCall(server, { method: 'POST', path: keysPath(userId) });
      assert.equal(bare.status, 201, 'no body: every field is optional');
      const bad = await hostCall(server, { method: 'POST', path: keysPath(userId), json: { expiresIn: 'soon' } });
      assert.deepEqual([bad.status, (bad.json as { error: { param: string } }).error.param], [422, 'expiresIn']);
    });

    test('keys: ten active at most, exact when twelve creations race', async () => {
      const server = open();
      const userId = newUserId('many');
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => hostCall(server, { method: 'POST', path: keysPath(userId), json: {} })),
      );
      assert.deepEqual(answers.map((res) => res.status).sort(), [...Array<number>(10).fill(201), 409, 409]);
      assert.ok(answers.filter((res) => res.status === 409).every((res) => errorCode(res.json) === 'too_many_keys'));
    });

    test('webhooks: created with a secret, listed, tested, attempts, secret rotated, enabled, deleted; refusals', async () => {
      const server = open();
      const userId = newUserId('hooks');
      const res = await hostCall(server, {
        method: 'POST',
        path: webhooksPath(userId),
        json: { url: 'https://hooks.example.com/meals', name: 'shop' },
      });
      assert.equal(res.status, 201, res.text);
      const created = res.json as { id: string; secret: string };
      assert.deepEqual(Object.keys(created), ['id', 'userId', 'url', 'name', 'secret', 'createdAt']);
      assert.match(created.secret, /^whsec_/);
      const listed = (await hostCall(server, { path: webhooksPath(userId) })).json;
      const cli = await cliJson(['webhooks', 'list', '--user', userId, '--db', server.db, '--json']);
      assert.deepEqual(listed, cli, 'the body of webhooks list --json');
      const base = `/host/v1/webhooks/${created.id}`;
      const tested = (await hostCall(server, { method: 'POST', path: `${base}/test` })).json as { eventId: string };
      assert.match(tested.eventId, /^msg_/);
      assert.ok(Array.isArray((await hostCall(server, { path: `${base}/attempts` })).json));
      const rotated = (await hostCall(server, { method: 'POST', path: `${base}/rotate-secret` })).json as {
        secret: string;
      };
      assert.notEqual(rotated.secret, created.secret);
      assert.deepEqual((await hostCall(server, { method: 'POST', path: `${base}/enable` })).json, {
        id: created.id,
        enabled: true,
      });
      assert.deepEqual((await hostCall(server, { method: 'DELETE', path: base })).json, {
        id: created.id,
        deleted: true,
      });
      assert.equal((await hostCall(server, { method: 'DELETE', path: base })).status, 404);
      assert.equal((await hostCall(server, { path: `${base}/attempts` })).status, 404);

      const insecure = await hostCall(server, {
        method: 'POST',
        path: webhooksPath(userId),
        json: { url: 'http://x.example.com/' },
      });
      assert.deepEqual([insecure.status, (insecure.json as { error: { param: string } }).error.param], [422, 'url']);
      const noUrl = await hostCall(server, { method: 'POST', path: webhooksPath(userId), json: { name: 'x' } });
      assert.deepEqual([noUrl.status, (noUrl.json as { error: { param: string } }).error.param], [422, 'url']);
    });

    test('webhooks: five endpoints at most, exact when seven creations race', async () => {
      const server = open();
      const userId = newUserId('hooks5');
      const answers = await Promise.all(
        Array.from({ length: 7 }, (_, i) =>
          hostCall(server, { method: 'POST', path: webhooksPath(userId), json: { url: `https://h${i}.example.com/` } }),
        ),
      );
      assert.deepEqual(answers.map((res) => res.status).sort(), [201, 201, 201, 201, 201, 409, 409]);
      assert.ok(
        answers.filter((res) => res.status === 409).every((res) => errorCode(res.json) === 'too_many_webhooks'),
      );
    });

    test('sign-in links: 201 with the url and its expiry', async () => {
      const server = open();
      const res = await hostCall(server, { method: 'POST', path: `/host/v1/users/${newUserId('link')}/login-links` });
      assert.equal(res.status, 201, res.text);
      const link = res.json as { url: string; expiresAt: string };
      assert.deepEqual(Object.keys(link), ['url', 'expiresAt']);
      assert.match(link.url, /^https:\/\/meals\.example\.com\/login\?token=/);
    });

    test('sign-in links with next: where they land once signed in, a path of the page only', async () => {
      const server = open();
      const path = `/host/v1/users/${newUserId('next')}/login-links`;
      const next = '/oauth/authorize?response_type=code&state=a%2Fb';
      const res = await hostCall(server, { method: 'POST', path, json: { next } });
      assert.equal(res.status, 201, res.text);
      assert.equal(new URL((res.json as { url: string }).url).searchParams.get('next'), next);
      for (const elsewhere of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'oauth/authorize']) {
        const refused = await hostCall(server, { method: 'POST', path, json: { next: elsewhere } });
        assert.equal(refused.status, 422, elsewhere);
        assert.equal((refused.json as { error: { param: string } }).error.param, 'next', elsewhere);
      }
    });
  });
}
