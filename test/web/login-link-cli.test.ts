import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { digestSecretToken } from '../../src/web/secret-token.js';
import { runCli } from '../support/cli.js';
import { makeTempDir } from '../support/project.js';
import { startTestServer } from '../support/server.js';
import { appPageUrl, pageRequest, tokenOf } from './page-client.js';

describe('meal-export users login-link', () => {
  const temp = makeTempDir('login-link');
  const db = path.join(temp.dir, 'store.db');
  after(() => temp.remove());

  before(async () => {
    // A store that exists, on which no app page has started.
    assert.equal((await runCli(['keys', 'create', '--user', 'u_0', '--db', db])).code, 0);
  });

  test('without --public-url, on a store where no app page has started, it refuses with one line', async () => {
    const result = await runCli(['users', 'login-link', '--user', 'u_1', '--db', db, '--json']);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^meal-export: no app page has started on this store: [^\n]*--public-url\n$/);
  });

  test('serve --app-port records the page address: --json prints a one-time link to the running page, for 15 minutes', async () => {
    const dataDir = path.join(temp.dir, 'data-recorded');
    const server = await startTestServer({ dataDir, extraArgs: ['--app-port', '0'] });
    let page: string;
    try {
      page = await appPageUrl(server);
      const pagePort = new URL(page).port;
      assert.match(page, /^https:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(pagePort, '8444');
      const started = Date.now();
      const result = await runCli(['users', 'login-link', '--user', 'u_1', '--db', server.db, '--json']);
      assert.equal(result.code, 0, result.stderr);
      const { url, expiresAt } = JSON.parse(result.stdout) as { url: string; expiresAt: string };
      assert.equal(url.slice(0, url.indexOf('?')), `${page}/login`);
      assert.match(url, /\/login\?token=[A-Za-z0-9_-]{43}$/);
      const lifetime = Date.parse(expiresAt) - started;
      assert.ok(lifetime > 14 * 60_000 && lifetime <= 15 * 60_000 + 30_000, `expires in ${lifetime} ms`);
      // The link reaches the running page: its sign-in button, the token not used up by a GET.
      const opened = await pageRequest(url, { path: new URL(url).pathname + new URL(url).search });
      assert.equal(opened.status, 200);
      const storage = await openSqliteStorage(server.db);
      try {
        assert.equal(await storage.signIns.consumeLoginToken(digestSecretToken(tokenOf(url)), Date.now()), 'u_1');
      } finally {
        await storage.close();
      }
      // serve's start log: the store, the limiter, and the page's address with its scheme.
      const logs = server.logs();
      assert.ok(logs.includes(`store ${server.db}, limiter in-process`), logs);
      assert.ok(logs.includes(`App page listening at ${page}`), logs);
      assert.ok(!logs.includes(`http://127.0.0.1:${pagePort}`), 'no http:// address for the HTTPS page');
      assert.equal(result.stderr, '', 'no warning while the page runs');
    } finally {
      await server.stop();
    }
    // The page has stopped: the link is still made (it opens once the page runs again), with a warning.
    const stopped = await runCli(['users', 'login-link', '--user', 'u_1', '--db', server.db, '--json']);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, /"url":"https:\/\/127\.0\.0\.1:\d+\/login\?token=/);
    assert.equal(
      stopped.stderr,
      `meal-export: nothing listens at ${page} now: the link opens once serve --app-port runs there again\n`,
    );
  });

  test('serve --app-port --public-url records the public address, behind a proxy', async () => {
    const server = await startTestServer({
      extraArgs: ['--app-port', '0', '--public-url', 'https://meals.example.com'],
    });
    try {
      await appPageUrl(server);
      const result = await runCli(['users', 'login-link', '--user', 'u_1', '--db', server.db]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^https:\/\/meals\.example\.com\/login\?token=/);
    } finally {
      await server.stop();
    }
  });

  test('--public-url (or MEAL_EXPORT_PUBLIC_URL) names the page; a path or another scheme is a usage error', async () => {
    const flag = await runCli([
      'users',
      'login-link',
      '--user',
      'u_1',
      '--db',
      db,
      '--public-url',
      'https://meals.example.com',
    ]);
    assert.match(flag.stdout, /^https:\/\/meals\.example\.com\/login\?token=/);
    const env = await runCli(['users', 'login-link', '--user', 'u_1', '--db', db], {
      env: { MEAL_EXPORT_PUBLIC_URL: 'https://env.example.com' },
    });
    assert.match(env.stdout, /^https:\/\/env\.example\.com\/login\?token=/);
    for (const bad of ['https://meals.example.com/keys', 'ftp://meals.example.com', 'meals.example.com']) {
      const result = await runCli(['users', 'login-link', '--user', 'u_1', '--db', db, '--public-url', bad]);
      assert.equal(result.code, 2, bad);
      assert.match(result.stderr, /^meal-export: --public-url must be an origin/);
    }
    assert.equal((await runCli(['users', 'login-link', '--db', db])).code, 2, 'no --user');
    assert.equal((await runCli(['users', 'nothing', '--db', db])).code, 2);
  });
});
