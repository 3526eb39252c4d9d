import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { digestServiceToken, generateServiceToken } from '../../src/domain/service-token.js';
import { createServiceTokenAuthenticator } from '../../src/keys/service-token-authenticator.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { type CliResult, runCli } from '../support/cli.js';
import { newPostgresSchema, postgresSkipReason } from '../support/postgres.js';
import { makeTempDir } from '../support/project.js';

// docs/cli.md#service-tokens: the --json shapes written out here, independently of src/.
const CREATED_FIELDS = ['id', 'token', 'name', 'createdAt'];
const LISTED_FIELDS = ['id', 'name', 'prefix', 'createdAt', 'lastUsedAt', 'revokedAt'];
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TOKEN_RE = /^mxs_[0-9A-Za-z]{49}$/;

interface Created {
  readonly id: string;
  readonly token: string;
  readonly name: string;
  readonly createdAt: string;
}

const temp = makeTempDir('service-tokens-cli');
after(() => temp.remove());
const skipPostgres = await postgresSkipReason();

const tokensAt =
  (db: string) =>
  (...args: string[]) =>
    runCli(['service-tokens', ...args, '--db', db]);

/** A run that must fail: the exit code, one line on stderr, nothing on stdout. */
function assertRefused(run: CliResult, code: number, message: RegExp): void {
  assert.equal(run.code, code, run.stderr);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /^meal-export: [^\n]+\n$/);
  assert.match(run.stderr, message);
}

function parsed<T>(run: CliResult): T {
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, '');
  return JSON.parse(run.stdout) as T;
}

/** create, list and revoke on the store at `db`, with every --json shape checked. */
async function roundTrip(db: string): Promise<void> {
  const tokens = tokensAt(db);
  const started = Date.now();
  const created = parsed<Created>(await tokens('create', '--name', '  billing  ', '--json'));
  assert.deepEqual(Object.keys(created), CREATED_FIELDS);
  assert.match(created.id, /^svc_[0-9A-Za-z]{16}$/);
  assert.match(created.token, TOKEN_RE);
  assert.equal(created.name, 'billing', 'trimmed');
  assert.match(created.createdAt, ISO_RE);
  assert.ok(Date.parse(created.createdAt) >= started - 5);

  const listed = parsed<Record<string, unknown>[]>(await tokens('list', '--json'));
  assert.deepEqual(listed, [
    {
      id: created.id,
      name: 'billing',
      prefix: created.token.slice(0, 12),
      createdAt: created.createdAt,
      lastUsedAt: null,
      revokedAt: null,
    },
  ]);
  assert.deepEqual(Object.keys(listed[0] ?? {}), LISTED_FIELDS);

  const storage = await openStorage(db);
  try {
    const auth = createServiceTokenAuthenticator(storage.serviceTokens);
    assert.equal((await auth.authenticate(created.token, Date.now()))?.id, created.id);
    await auth.settled();
    assert.deepEqual(parsed(await tokens('revoke', created.id, '--json')), { id: created.id, revoked: true });
    // Trusted for half a second after its last lookup (keys/service-token-authenticator.ts): refused within 1 s.
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(await auth.authenticate(created.token, Date.now()), undefined, 'refused within 1 s');
  } finally {
    await storage.close();
  }
  const [revoked] = parsed<{ lastUsedAt: string | null; revokedAt: string | null }[]>(await tokens('list', '--json'));
  assert.match(revoked?.lastUsedAt ?? '', ISO_RE);
  assert.match(revoked?.revokedAt ?? '', ISO_RE);
  assert.deepEqual(parsed(await tokens('revoke', created.id, '--json')), { id: created.id, revoked: true }, 'twice');
}

describe('meal-export service-tokens', () => {
  test('create, list and revoke speak the documented JSON on a SQLite store', async () => {
    await roundTrip(path.join(temp.dir, 'json.db'));
  });

  test('create, list and revoke speak the documented JSON on PostgreSQL', { skip: skipPostgres ?? false }, async () => {
    const store = await newPostgresSchema('service_tokens_cli');
    try {
      await roundTrip(store.url);
    } finally {
      await store.remove();
    }
  });

  test('create shows the token once, on the first line of stdout, and stores only its digest', async () => {
    const db = path.join(temp.dir, 'words.db');
    const run = await runCli(['service-tokens', 'create', '--name', 'ops'], { env: { MEAL_EXPORT_DATABASE_URL: db } });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    const [token = '', blank, ...rest] = run.stdout.split('\n');
    assert.match(token, TOKEN_RE);
    assert.equal(blank, '');
    assert.match(rest.join('\n'), /svc_[0-9A-Za-z]{16} \(ops\)[\s\S]*only time the token is shown/);
    const storage = await openStorage(db);
    try {
      assert.equal((await storage.serviceTokens.findServiceTokenByDigest(digestServiceToken(token)))?.name, 'ops');
    } finally {
      await storage.close();
    }
    const list = await tokensAt(db)('list');
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^svc_\S+ {2}mxs_\S{8}… {2}active {3}created \S+ {2}last used never {2}ops\n$/);
    assert.equal(list.stdout.includes(token.slice(12)), false, 'never the secret');
  });

  test('revoking an unknown id fails in one line, never echoing a token given by mistake', async () => {
    const db = path.join(temp.dir, 'unknown.db');
    const tokens = tokensAt(db);
    parsed(await tokens('create', '--name', 'a', '--json'));
    assertRefused(await tokens('revoke', 'svc_nope'), 1, /^meal-export: no service token with id svc_nope\n$/);
    const token = generateServiceToken();
    const mistaken = await tokens('revoke', token);
    assertRefused(mistaken, 1, /no service token with id mxs_\[redacted\]/);
    assert.equal(mistaken.stderr.includes(token.slice(4, 20)), false);
    assertRefused(await tokens('revoke'), 2, /expected 1 argument, got 0/);
  });

  test('create refuses a missing, blank, too long or control-character name, making no token', async () => {
    const db = path.join(temp.dir, 'names.db');
    const tokens = tokensAt(db);
    assertRefused(await tokens('create'), 2, /missing --name/);
    assertRefused(await tokens('create', '--name', ''), 2, /missing --name/);
    for (const name of ['   ', 'x'.repeat(101), 'a\tb']) {
      assertRefused(await tokens('create', '--name', name), 2, /name is 1 to 100 characters/);
    }
    assertRefused(await tokens('create', '--name', 'a', 'extra'), 2, /expected 0 arguments/);
    assert.deepEqual(parsed(await tokens('list', '--json')), []);
    const none = await tokens('list');
    assert.equal(none.stdout, 'no service tokens\n');
  });

  test('list and revoke refuse a store that does not exist, making none', async () => {
    const db = path.join(temp.dir, 'missing.db');
    for (const args of [['list'], ['revoke', 'svc_x']]) {
      assertRefused(await tokensAt(db)(...args), 1, /no store there/);
    }
  });
});
