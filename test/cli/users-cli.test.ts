import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import { cliJson, runCli } from '../support/cli.js';
import { makeTempDir } from '../support/project.js';

// `users login-link --next PATH`: the link lands on a path of the page once signed in, never
// elsewhere (docs/cli.md#users).
const dir = makeTempDir('users-cli');
const db = path.join(dir.dir, 'meal-export.db');

after(() => dir.remove());

test('users login-link --next puts the path in the link; a next elsewhere is a usage error', async () => {
  const base = ['users', 'login-link', '--user', 'u_1', '--db', db, '--public-url', 'https://meals.example.com'];
  await runCli(['keys', 'create', '--user', 'u_0', '--db', db]); // makes the store
  const next = '/oauth/authorize?client_id=app_1&state=s';
  const link = await cliJson<{ url: string }>([...base, '--next', next]);
  assert.equal(new URL(link.url).searchParams.get('next'), next);
  const refused = await runCli([...base, '--next', 'https://evil.example/']);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /--next must be a path of the app page/);
});
