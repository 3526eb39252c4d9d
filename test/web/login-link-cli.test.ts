import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { digestSecretToken } from '../../src/web/secret-token.js';
import { runCli } from '../support/cli.js';
import { makeTempDir } from '../support/project.js';
import { tokenOf } from './page-client.js';

describe('meal-export users login-link', () => {
  const temp = makeTempDir('login-link');
  const db = path.join(temp.dir, 'store.db');
  after(() => temp.remove());

  before(async () => {
    // The command only uses a store that exists (issue 17, item 2).
    assert.equal((await runCli(['keys', 'create', '--user', 'u_0', '--db', db])).code, 0);
  });

  test('--json prints the one-time link, on the default page address, valid for 15 minutes', async () => {
    const started = Date.now();
    const result = await runCli(['users', 'login-link', '--user', 'u_1', '--db', db, '--json']);
    assert.equal(result.code, 0, result.stderr);
    const { url, expiresAt } = JSON.parse(result.stdout) as { url: string; expiresAt: string };
    assert.match(url, /^https:\/\/127\.0\.0\.1:8444\/login\?token=[A-Za-z0-9_-]{43}$/);
    const lifetime = Date.parse(expiresAt) - started;
    assert.ok(lifetime > 14 * 60_000 && lifetime <= 15 * 60_000 + 30_000, `expires in ${lifetime} ms`);
    const storage = await openSqliteStorage(db);
    try {
      assert.equal(await storage.consumeLoginToken(digestSecretToken(tokenOf(url)), Date.now()), 'u_1');
    } finally {
      await storage.close();
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
