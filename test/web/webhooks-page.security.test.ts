import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { cliJson } from '../support/cli.js';
import { newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { appPageUrl, asShown, pageRequest, tokenOf } from './page-client.js';

const SECRET_RE = /whsec_[A-Za-z0-9+/]{43}=/;
/** Every secret in a text (a separate, global copy: `test` on a global RegExp keeps state). */
const secretsIn = (text: string) => text.match(new RegExp(SECRET_RE, 'g')) ?? [];

/** The app page's webhook forms from Node, as a forger or a careless client would send them. */
describe('the app page: webhook endpoints, security', () => {
  let server: ServedApp;
  let app: string;
  let storage: Storage;

  /** A signed-in user: the cookie, the form token, and a sender of the add form with a fresh id each time. */
  async function signedInUser(prefix: string) {
    const userId = newUserId(prefix);
    const link = (
      await cliJson<{ url: string }>(['users', 'login-link', '--user', userId, '--db', server.db, '--public-url', app])
    ).url;
    const signedIn = await pageRequest(app, {
      path: '/login',
      headers: { origin: app },
      form: { token: tokenOf(link) },
    });
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0] ?? '';
    const page = await pageRequest(app, { path: '/', headers: { cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const webhookIdOf = (text: string) => /name="webhookId" value="(wh_[0-9A-Za-z]{22})"/.exec(text)?.[1] ?? '';
    // As a browser sends it, and follows its 303 to the page that shows what it did.
    const post = async (path: string, form: Record<string, string>) =>
      asShown(app, await pageRequest(app, { path, headers: { cookie, origin: app }, form }), cookie);
    const add = async (url: string, name = '') => {
      const fresh = await pageRequest(app, { path: '/', headers: { cookie } });
      return post('/webhooks', { csrf, webhookId: webhookIdOf(fresh.text), url, name });
    };
    return { userId, cookie, csrf, page, webhookIdOf, post, add };
  }

  before(async () => {
    server = await startInProcessServer({ extraArgs: ['--app-port', '0'] });
    app = await appPageUrl(server);
    storage = await openSqliteStorage(server.db);
  });

  after(async () => {
    await storage?.close();
    await server?.stop();
  });

  test('an add form without the CSRF token, or with a wrong one, is refused (403) and adds nothing', async () => {
    const user = await signedInUser('whcsrf');
    const webhookId = user.webhookIdOf(user.page.text);
    for (const csrf of [undefined, 'x'.repeat(43)]) {
      const form: Record<string, string> = { webhookId, url: 'https://example.com/hook' };
      if (csrf !== undefined) form.csrf = csrf;
      const refused = await user.post('/webhooks', form);
      assert.equal(refused.status, 403);
      assert.match(refused.text, /This form was refused/);
    }
    const fromElsewhere = await pageRequest(app, {
      path: '/webhooks',
      headers: { cookie: user.cookie, origin: 'https://evil.example' },
      form: { csrf: user.csrf, webhookId, url: 'https://example.com/hook' },
    });
    assert.equal(fromElsewhere.status, 403);
    assert.deepEqual(await storage.webhooks.listWebhooks(user.userId), []);
  });

  test("another user's endpoint is unknown (404) to every form, and is left as it was", async () => {
    const owner = await signedInUser('whowner');
    assert.equal((await owner.add('https://example.com/owner', 'mine')).status, 303);
    const [endpoint] = await storage.webhooks.listWebhooks(owner.userId);
    assert.ok(endpoint !== undefined);
    const other = await signedInUser('whother');
    for (const action of ['test', 'rotate', 'enable', 'delete']) {
      const answer = await other.post(`/webhooks/${endpoint.id}/${action}`, { csrf: other.csrf });
      assert.equal(answer.status, 404, action);
      assert.match(answer.text, /No such webhook endpoint/);
      assert.doesNotMatch(answer.text, /example\.com\/owner/);
    }
    const confirm = await pageRequest(app, {
      path: `/webhooks/${endpoint.id}/delete`,
      headers: { cookie: other.cookie },
    });
    assert.equal(confirm.status, 404);
    assert.deepEqual(await storage.webhooks.findWebhook(endpoint.id), endpoint, 'not deleted, rotated or changed');
    assert.deepEqual(await storage.webhooks.listWebhookAttempts(endpoint.id), []);
  });

  test('an http:// URL, or one with a password, is refused with a clear message', async () => {
    const user = await signedInUser('whurl');
    const plain = await user.add('http://example.com/hook');
    assert.equal(plain.status, 303);
    assert.match(plain.text, /A webhook URL must start with https:\/\/\. No endpoint was added\./);
    assert.match(plain.text, /value="http:\/\/example\.com\/hook"/, 'the form keeps the URL to correct');
    const quoted = await user.add('http://x/"><script>alert(1)</script>', '"><b>');
    assert.ok(quoted.text.includes('value="http://x/&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"'), 'escaped');
    assert.ok(quoted.text.includes('value="&quot;&gt;&lt;b&gt;"'));
    assert.ok(!quoted.text.includes('<script>alert'));
    const withPassword = await user.add('https://user:pw@example.com/hook');
    assert.equal(withPassword.status, 303);
    assert.match(withPassword.text, /must not contain a user name or password/);
    assert.deepEqual(await storage.webhooks.listWebhooks(user.userId), []);
  });

  test('a host that is a link-local or multicast IP literal is refused with the range named', async () => {
    const user = await signedInUser('whrange');
    const refused: ReadonlyArray<readonly [string, string]> = [
      ['https://169.254.169.254/latest/meta-data', 'link-local'],
      ['https://[::ffff:169.254.169.254]/x', 'link-local'],
      ['https://[ff02::1]/x', 'multicast'],
    ];
    for (const [url, range] of refused) {
      const answer = await user.add(url);
      assert.equal(answer.status, 303, url);
      assert.match(answer.text, new RegExp(`must not have a ${range} address as its host`), url);
    }
    assert.deepEqual(await storage.webhooks.listWebhooks(user.userId), []);
  });

  test('a 6th endpoint is refused: 5 per user', async () => {
    const user = await signedInUser('whsix');
    for (let i = 1; i <= 5; i += 1) assert.equal((await user.add(`https://example.com/${i}`)).status, 303);
    const page = await pageRequest(app, { path: '/', headers: { cookie: user.cookie } });
    assert.match(page.text, /You have 5 endpoints, the most allowed/, 'the page offers no add form');
    const sixth = await user.post('/webhooks', {
      csrf: user.csrf,
      webhookId: 'wh_' + 'A'.repeat(22),
      url: 'https://example.com/6',
    });
    assert.equal(sixth.status, 303);
    assert.match(sixth.text, /You already have 5 webhook endpoints: delete one/);
    assert.equal((await storage.webhooks.listWebhooks(user.userId)).length, 5);
  });

  test('the secret is shown once, on the page the add form opens: never in its address, never again, not on a resend, not in the logs', async () => {
    const user = await signedInUser('whonce');
    const webhookId = user.webhookIdOf(user.page.text);
    const form = {
      csrf: user.csrf,
      webhookId,
      url: 'https://example.com/hook?a=1&b=<x>',
      name: '<img src=x onerror=alert(1)>',
    };
    const first = await user.post('/webhooks', form);
    assert.equal(first.status, 303);
    assert.equal(first.location, '/', 'the address carries nothing');
    const secrets = secretsIn(first.text);
    assert.equal(secrets.length, 1, 'the secret is on the page once');
    const [secret] = secrets;
    assert.ok(secret !== undefined);
    assert.equal((await storage.webhooks.findWebhook(webhookId))?.secret, secret);
    assert.ok(first.text.includes('&lt;img src=x onerror=alert(1)&gt;'), 'the name is escaped');
    assert.ok(first.text.includes('https://example.com/hook?a=1&amp;b=&lt;x&gt;'), 'the URL is escaped');
    assert.ok(!first.text.includes('<img src=x') && !first.text.includes('<x>'));

    const again = await user.post('/webhooks', form);
    assert.equal(again.status, 303, 'the same form sent twice adds one endpoint');
    assert.match(again.text, /This form was sent already/);
    assert.equal((await storage.webhooks.listWebhooks(user.userId)).length, 1);
    for (const text of [again.text, (await pageRequest(app, { path: '/', headers: { cookie: user.cookie } })).text]) {
      assert.doesNotMatch(text, SECRET_RE);
    }
    assert.ok(!server.logs().includes(secret.slice(6)), 'not in the logs');
  });

  test('the rotate form sent twice rotates once: the secret the receiver still checks with is kept for 24 hours', async () => {
    const user = await signedInUser('whrotate');
    const added = await user.add('https://example.com/rotate');
    const [original] = secretsIn(added.text);
    const [endpoint] = await storage.webhooks.listWebhooks(user.userId);
    assert.ok(original !== undefined && endpoint !== undefined);
    const rotation = /name="rotation" value="(\d+)"/.exec(added.text)?.[1];
    assert.equal(rotation, '0', 'the form names the rotation it saw');
    const send = () => user.post(`/webhooks/${endpoint.id}/rotate`, { csrf: user.csrf, rotation });

    const first = await send();
    assert.equal(first.status, 303);
    const shown = secretsIn(first.text);
    assert.equal(shown.length, 1, 'the new secret is shown once');
    const rotated = await storage.webhooks.findWebhook(endpoint.id);
    assert.equal(rotated?.secret, shown[0]);
    assert.equal(rotated?.previousSecret, original);

    const second = await send();
    assert.equal(second.status, 303);
    assert.match(second.text, /it was not rotated again/);
    assert.doesNotMatch(second.text, SECRET_RE);
    assert.deepEqual(await storage.webhooks.findWebhook(endpoint.id), rotated, 'unchanged');
  });
});
