import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from '../support/cli.js';
import { makeTempDir } from '../support/project.js';
import { makeMeal, newUserId, startTestServer, type TestServer } from '../support/server.js';
import {
  assertSameAsExport,
  cli,
  csvRows,
  exported,
  fileText,
  pull,
  pullArgs,
  pullFiles,
  spawnPull,
  waitFor,
} from './pull-harness.js';

// One server for the file, with no interval: every test has its own user and files.
let server: TestServer;
const temp = makeTempDir('pull');

before(async () => {
  server = await startTestServer();
});

after(async () => {
  await server.stop();
  temp.remove();
});

async function userWith(count: number, overrides: Record<string, unknown> = {}) {
  const userId = newUserId('pull');
  const { id, key } = await server.createKey(userId);
  const meals = Array.from({ length: count }, () => makeMeal(undefined, overrides));
  if (count > 0) await server.importMeals(userId, meals);
  return { userId, key, keyId: id, ids: meals.map((m) => String(m.id)) };
}

describe('meal-export pull', { concurrency: 4 }, () => {
  test('a full pull into a .csv file equals `meals export` for that user', async () => {
    const user = await userWith(7, { description: 'with, a comma and "quotes"\nand a line' });
    const files = pullFiles(temp.dir, 'full');
    const summary = await pull(server, user.key, files, ['--limit', '3']);
    assert.deepEqual(summary, { pages: summary.pages, upserted: 7, deleted: 0, total: 7, verified: true });
    await assertSameAsExport(server, user.userId, files.out, 'csv');
    const state = JSON.parse(readFileSync(files.state, 'utf8')) as Record<string, unknown>;
    assert.equal(state.userId, user.userId);
    // Following the changes from just after the newest one the pass saw: nothing came since,
    // so there is no cursor yet.
    const lines = (await exported(server, user.userId, 'jsonl')).trim().split('\n');
    const newest = JSON.parse(lines.at(-1) ?? '{}') as { modifiedAt: string };
    assert.equal(state.lastModifiedSince, new Date(Date.parse(newest.modifiedAt) + 1).toISOString());
    assert.equal(state.cursor, null);
  });

  test('a full pull into a .jsonl file equals `meals export --format jsonl`', async () => {
    const user = await userWith(4);
    const files = pullFiles(temp.dir, 'full-jsonl', 'jsonl');
    await pull(server, user.key, files);
    await assertSameAsExport(server, user.userId, files.out, 'jsonl');
  });

  test('a user with no meals gets the header row only, like `meals export`', async () => {
    const user = await userWith(0);
    const files = pullFiles(temp.dir, 'empty');
    assert.deepEqual(await pull(server, user.key, files), {
      pages: 2,
      upserted: 0,
      deleted: 0,
      total: 0,
      verified: true,
    });
    await assertSameAsExport(server, user.userId, files.out, 'csv');
  });

  test('updates and deletes made between two pulls appear after the second', async () => {
    const user = await userWith(5);
    const files = pullFiles(temp.dir, 'changes');
    await pull(server, user.key, files, ['--limit', '2']);
    const [first, second, third] = user.ids;
    await server.importMeals(user.userId, [makeMeal(second, { title: 'changed title' }), makeMeal('brand-new-meal')]);
    await cli('meals', 'delete', '--user', user.userId, String(first), '--db', server.db);
    await cli('meals', 'delete', '--user', user.userId, String(third), '--db', server.db);

    const summary = await pull(server, user.key, files, ['--limit', '2']);
    assert.deepEqual(summary, { pages: 2, upserted: 2, deleted: 2, total: 4, verified: true });
    await assertSameAsExport(server, user.userId, files.out, 'csv');
    const rows = csvRows(fileText(files.out));
    assert.deepEqual(
      rows.slice(1).map((row) => row[0]),
      [user.ids[3], user.ids[4], second, 'brand-new-meal'],
    );
    assert.equal(rows.find((row) => row[0] === second)?.[2], 'changed title');
  });

  test('a pull with nothing new changes nothing and says so', async () => {
    const user = await userWith(3);
    const files = pullFiles(temp.dir, 'again');
    await pull(server, user.key, files);
    const before = fileText(files.out);
    assert.deepEqual(await pull(server, user.key, files), {
      pages: 1,
      upserted: 0,
      deleted: 0,
      total: 3,
      verified: true,
    });
    assert.equal(fileText(files.out), before);
  });

  test('reads the key from --key-file and prints a sentence without --json', async () => {
    const user = await userWith(2);
    const files = pullFiles(temp.dir, 'key-file');
    const keyFile = path.join(temp.dir, 'key.txt');
    writeFileSync(keyFile, `${user.key}\n`);
    const run = await runCli(pullArgs(server, files, ['--key-file', keyFile]));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^pulled \d+ pages: 2 upserted, 0 deleted; .*key-file\.csv holds 2 meals, verified\n$/);
    assert.equal(run.stderr, '', 'quiet when stderr is not a terminal');
  });

  test('refuses a key on the command line, and says where a key may come from', async () => {
    const user = await userWith(1);
    for (const flag of [['--key', user.key], [`--key=${user.key}`]]) {
      const run = await runCli(pullArgs(server, pullFiles(temp.dir, 'argv'), flag));
      assert.equal(run.code, 2);
      assert.match(run.stderr, /^meal-export: --key is refused: .*MEAL_EXPORT_API_KEY or pass --key-file FILE\n$/);
    }
    const none = await runCli(pullArgs(server, pullFiles(temp.dir, 'argv')));
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^meal-export: no API key: set MEAL_EXPORT_API_KEY or pass --key-file FILE/);
  });

  test('without --ca a self-signed server is refused at once, with a hint, and a bad --out is a usage error', async () => {
    const user = await userWith(1);
    const files = pullFiles(temp.dir, 'no-ca');
    const args = pullArgs(server, files);
    const withoutCa = args.filter((_, i) => args[i] !== '--ca' && args[i - 1] !== '--ca');
    const run = await runCli(withoutCa, { env: { MEAL_EXPORT_API_KEY: user.key } });
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^meal-export: cannot connect to https:\/\/127\.0\.0\.1:\d+: the server's certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\): pass its cert\.pem as ca \(--ca\)\n$/,
    );
    const txt = await runCli(pullArgs(server, { ...files, out: path.join(temp.dir, 'meals.txt') }), {
      env: { MEAL_EXPORT_API_KEY: user.key },
    });
    assert.equal(txt.code, 2);
    assert.match(txt.stderr, /--out must end in \.csv or \.jsonl/);
  });

  test('a revoked key ends with one clear line on stderr and exit 1, leaving the copy as it was', async () => {
    const user = await userWith(2);
    const files = pullFiles(temp.dir, 'revoked');
    await pull(server, user.key, files);
    const before = fileText(files.out);
    await cli('keys', 'revoke', user.keyId, '--db', server.db);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the contract's 1 s for revocation
    const run = await runCli(pullArgs(server, files), { env: { MEAL_EXPORT_API_KEY: user.key } });
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      "meal-export: the server refused the API key (invalid_api_key): the key no longer works: it was revoked or has expired, or the person erased their account or disconnected the app (or it was never this server's); ask for a new key\n",
    );
    assert.equal(fileText(files.out), before);
  });

  test("refuses to mix two users' meals in one copy", async () => {
    const alice = await userWith(1);
    const bob = await userWith(1);
    const files = pullFiles(temp.dir, 'two-users');
    await pull(server, alice.key, files);
    const before = fileText(files.out);
    const run = await runCli(pullArgs(server, files), { env: { MEAL_EXPORT_API_KEY: bob.key } });
    assert.equal(run.code, 1);
    // The first page of bob's is refused before it is applied: it names another user.
    assert.match(
      run.stderr,
      /^meal-export: .*two-users\.csv holds user pull_\S+'s meals but this key is user pull_\S+'s: use another --state and --out\n$/,
    );
    assert.equal(fileText(files.out), before);
  });

  test("refuses a saved cursor of another user's: the server refuses it before any meal is read", async () => {
    const alice = await userWith(1);
    const bob = await userWith(1);
    const files = pullFiles(temp.dir, 'two-cursors');
    await pull(server, alice.key, files);
    // A change pulled after the pass: the saved position is a cursor, bound to alice.
    await server.importMeals(alice.userId, [makeMeal()]);
    await pull(server, alice.key, files);
    assert.equal(typeof (JSON.parse(fileText(files.state)) as { cursor: unknown }).cursor, 'string');
    const before = fileText(files.out);
    const run = await runCli(pullArgs(server, files), { env: { MEAL_EXPORT_API_KEY: bob.key } });
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^meal-export: the server refused the position saved in .*two-cursors\.state\.json \(invalid_parameter\): it is another server's or another user's; delete it and .*two-cursors\.csv to pull everything again\n$/,
    );
    assert.equal(fileText(files.out), before);
  });

  test('--follow writes a change imported in another process within about a second, from a held poll; SIGTERM exits 0 at once; the state resumes with no duplicate', async () => {
    const user = await userWith(2);
    const files = pullFiles(temp.dir, 'follow', 'jsonl');
    const lines = () => fileText(files.out).split('\n').filter(Boolean);
    const running = spawnPull(server, user.key, files, ['--follow', '60', '--json']);
    await waitFor('the first pull', () => lines().length === 2 && fileText(files.state) !== '');
    await sleep(1_000); // its poll is held now
    const meal = makeMeal();
    await server.importMeals(user.userId, [meal]);
    const importedAt = performance.now();
    await waitFor('the followed change', () => fileText(files.out).includes(String(meal.id)), 5_000);
    const latency = performance.now() - importedAt;
    assert.ok(latency <= 2_000, `written ${Math.round(latency)} ms after the import`);
    await sleep(500); // held again

    const signalled = performance.now();
    running.child.kill('SIGTERM');
    const { code } = await running.exited;
    assert.equal(code, 0, running.stderr());
    assert.ok(performance.now() - signalled < 2_000, 'the held poll is dropped at once, not waited out');
    // The pass's page, then the follow's poll, held until the import and answered with it.
    assert.deepEqual(JSON.parse(running.stdout()), { pages: 2, upserted: 3, deleted: 0, total: 3, verified: true });
    await assertSameAsExport(server, user.userId, files.out, 'jsonl');

    const next = makeMeal();
    await server.importMeals(user.userId, [next]);
    assert.deepEqual(await pull(server, user.key, files), {
      pages: 1,
      upserted: 1,
      deleted: 0,
      total: 4,
      verified: true,
    });
    assert.equal(lines().length, 4);
    await assertSameAsExport(server, user.userId, files.out, 'jsonl');
  });

  test('--follow over 120 s holds each poll 120 s and says so; SIGINT exits 0 with the state saved', async () => {
    const user = await userWith(1);
    const files = pullFiles(temp.dir, 'follow-long');
    const running = spawnPull(server, user.key, files, ['--follow', '3600', '--json']);
    await waitFor('the first pull', () => csvRows(fileText(files.out)).length === 2 && fileText(files.state) !== '');
    await sleep(1_000);
    running.child.kill('SIGINT');
    const { code } = await running.exited;
    assert.equal(code, 0, running.stderr());
    assert.equal(
      running.stderr(),
      "meal-export: --follow 3600: each poll is held up to 120 s, the server's longest wait\n",
    );
    assert.equal((JSON.parse(running.stdout()) as { total: number }).total, 1);
    assert.deepEqual(await pull(server, user.key, files), {
      pages: 1,
      upserted: 0,
      deleted: 0,
      total: 1,
      verified: true,
    });
    await assertSameAsExport(server, user.userId, files.out, 'csv');
  });
});
