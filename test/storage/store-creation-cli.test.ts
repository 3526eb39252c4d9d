import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import postgres from 'postgres';
import { runCli } from '../support/cli.js';
import { newPostgresSchema, postgresSkipReason } from '../support/postgres.js';
import { makeTempDir } from '../support/project.js';
import { startTestServer } from '../support/server.js';

// No store is made by mistake. A command that only reads, or changes what a
// store already holds, refuses a store that does not exist; no command makes a store's folder.

/** The commands that only use an existing store, each with `--db` to append. */
const EXISTING_ONLY: readonly (readonly string[])[] = [
  ['keys', 'list', '--user', 'u_1'],
  ['keys', 'revoke', 'key_1'],
  ['service-tokens', 'list'],
  ['service-tokens', 'revoke', 'svc_1'],
  ['meals', 'export', '--user', 'u_1'],
  ['meals', 'delete', '--user', 'u_1', 'meal_1'],
  ['meals', 'prune'],
  ['webhooks', 'list', '--user', 'u_1'],
  ['webhooks', 'attempts', 'wh_1'],
  ['webhooks', 'delete', 'wh_1'],
  ['webhooks', 'enable', 'wh_1'],
  ['webhooks', 'rotate-secret', 'wh_1'],
  ['webhooks', 'test', 'wh_1'],
  ['users', 'login-link', '--user', 'u_1'],
];

/** The commands that may make a store: a new file in a folder that exists, never the folder. */
function creating(dir: string): (readonly string[])[] {
  const file = path.join(dir, 'meals.jsonl');
  writeFileSync(file, `${JSON.stringify({ title: 't', type: 'lunch', date: '2025-01-01T12:00:00Z' })}\n`);
  return [
    ['keys', 'create', '--user', 'u_1'],
    ['service-tokens', 'create', '--name', 'app'],
    ['meals', 'import', '--user', 'u_1', file],
    ['webhooks', 'create', '--user', 'u_1', '--url', 'https://hooks.example.com/in'],
    ['seed', '--users', '1', '--meals-per-user', '1'],
    ['serve', '--port', '0', '--insecure-http', '--data-dir', path.join(dir, 'data')],
  ];
}

function assertOneLineFailure(result: { code: number | null; stdout: string; stderr: string }, what: string): void {
  assert.equal(result.code, 1, `${what}: ${result.stderr}`);
  assert.equal(result.stdout, '', what);
  assert.match(result.stderr, /^meal-export: cannot open the database .*: no store there: [^\n]*\n$/, what);
}

describe('no store is made by mistake', () => {
  const temp = makeTempDir('store-creation');
  after(() => temp.remove());

  test('a command that only uses a store refuses a missing folder with one line, and makes nothing', async () => {
    const missing = path.join(temp.dir, 'nonexistent');
    for (const command of EXISTING_ONLY) {
      const result = await runCli([...command, '--db', path.join(missing, 'dir', 'x.db')]);
      assertOneLineFailure(result, command.join(' '));
      assert.match(result.stderr, /the folder .*nonexistent.dir does not exist/, command.join(' '));
      assert.equal(existsSync(missing), false, `${command.join(' ')} made no folder`);
    }
  });

  test('a command that only uses a store refuses a missing file in a folder that exists, and makes none', async () => {
    const db = path.join(temp.dir, 'absent.db');
    for (const command of EXISTING_ONLY) {
      const result = await runCli([...command, '--db', db]);
      assertOneLineFailure(result, command.join(' '));
      assert.match(result.stderr, /only uses an existing store/, command.join(' '));
      assert.equal(existsSync(db), false, `${command.join(' ')} made no file`);
    }
  });

  test('a command that writes makes no folder for a store, not even serve (only its own data folder)', async () => {
    const missing = path.join(temp.dir, 'not-made');
    for (const command of creating(temp.dir)) {
      const result = await runCli([...command, '--db', path.join(missing, 'x.db')]);
      assertOneLineFailure(result, command.join(' '));
      assert.equal(existsSync(missing), false, `${command.join(' ')} made no folder`);
    }
  });

  test('serve makes its own data folder, and the store in it, when the store is there', async () => {
    const dataDir = path.join(temp.dir, 'new', 'data');
    const db = path.join(dataDir, 'meal-export.db');
    const server = await startTestServer({ dataDir, db, extraArgs: ['--insecure-http'] });
    try {
      assert.equal(existsSync(db), true);
      assert.equal((await runCli(['keys', 'list', '--user', 'u_1', '--db', db])).code, 0);
    } finally {
      await server.stop();
    }
  });

  test('keys create makes a new store in a folder that exists; keys list then reads it', async () => {
    const db = path.join(temp.dir, 'fresh.db');
    const created = await runCli(['keys', 'create', '--user', 'u_1', '--db', db, '--json']);
    assert.equal(created.code, 0, created.stderr);
    const listed = await runCli(['keys', 'list', '--user', 'u_1', '--db', db, '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal((JSON.parse(listed.stdout) as unknown[]).length, 1);
  });
});

const pgSkip = await postgresSkipReason();

describe('no store is made by mistake on PostgreSQL', { skip: pgSkip ?? false }, () => {
  test('a command that only reads refuses a database without the tables, with one line, and creates none', async () => {
    const store = await newPostgresSchema('noStore');
    try {
      const result = await runCli(['keys', 'list', '--user', 'u_1', '--db', store.url]);
      assertOneLineFailure(result, 'keys list');
      const sql = postgres(store.url, { max: 1, onnotice: () => undefined });
      try {
        const [row] = await sql<{ found: boolean }[]>`SELECT to_regclass('schema_migrations') IS NOT NULL AS found`;
        assert.equal(row?.found, false, 'no table was created');
      } finally {
        await sql.end();
      }
      const created = await runCli(['keys', 'create', '--user', 'u_1', '--db', store.url]);
      assert.equal(created.code, 0, created.stderr);
      assert.equal((await runCli(['keys', 'list', '--user', 'u_1', '--db', store.url])).code, 0);
    } finally {
      await store.remove();
    }
  });
});
