import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { after, test } from 'node:test';
import { BIN, makeTempDir, runCli } from './cli-harness.js';

const temp = makeTempDir();
const dbA = path.join(temp.dir, 'a.db');
const dbB = path.join(temp.dir, 'b.db');

after(() => temp.remove());

async function seed(db: string, ...args: string[]) {
  const run = await runCli(['seed', ...args, '--db', db, '--json']);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/** A user's export as JSON Lines, without modifiedAt, which records when it was written. */
async function content(db: string, user: string): Promise<Record<string, unknown>[]> {
  const run = await runCli(['meals', 'export', '--user', user, '--format', 'jsonl', '--db', db]);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const { modifiedAt: _, ...rest } = JSON.parse(line) as Record<string, unknown>;
      return rest;
    });
}

test('seed prints {"users","heavyUsers","meals","seconds"} and makes users seed_1 to seed_N with their meals in order', async () => {
  const result = await seed(dbA, '--users', '3', '--meals-per-user', '40', '--seed', 'demo');
  assert.deepEqual(Object.keys(result), ['users', 'heavyUsers', 'meals', 'seconds']);
  assert.equal(result.users, 3);
  assert.equal(result.heavyUsers, 0);
  assert.equal(result.meals, 120);
  assert.equal(typeof result.seconds, 'number');
  for (const user of [1, 2, 3]) {
    const meals = await content(dbA, `seed_${user}`);
    assert.deepEqual(
      meals.map((m) => m.id),
      Array.from({ length: 40 }, (_, i) => `seed_${user}_${i + 1}`),
    );
  }
  assert.deepEqual(await content(dbA, 'seed_4'), []);
});

test('the same --seed gives the same meals in another store, and running it again changes none of them', async () => {
  await seed(dbB, '--users', '3', '--meals-per-user', '40', '--seed', 'demo');
  const first = await content(dbA, 'seed_2');
  assert.equal(first.length, 40);
  assert.deepEqual(await content(dbB, 'seed_2'), first);
  await seed(dbA, '--users', '3', '--meals-per-user', '40', '--seed', 'demo');
  assert.deepEqual(await content(dbA, 'seed_2'), first, 'a re-run updates the same ids with the same values');
});

test('another --seed gives other meals under the same ids', async () => {
  const before = await content(dbA, 'seed_1');
  await seed(dbA, '--users', '1', '--meals-per-user', '40', '--seed', 'other');
  const after = await content(dbA, 'seed_1');
  assert.deepEqual(
    after.map((m) => m.id),
    before.map((m) => m.id),
  );
  assert.notDeepEqual(after, before);
});

test('--heavy-users K --heavy-meals H adds users seed_heavy_1 to seed_heavy_K with H meals each', async () => {
  const db = path.join(temp.dir, 'heavy.db');
  const result = await seed(db, '--users', '2', '--meals-per-user', '5', '--heavy-users', '2', '--heavy-meals', '30');
  assert.deepEqual(result.users, 2);
  assert.deepEqual(result.heavyUsers, 2);
  assert.deepEqual(result.meals, 2 * 5 + 2 * 30);
  for (const user of [1, 2]) {
    assert.deepEqual(
      (await content(db, `seed_heavy_${user}`)).map((m) => m.id),
      Array.from({ length: 30 }, (_, i) => `seed_heavy_${user}_${i + 1}`),
    );
    assert.equal((await content(db, `seed_${user}`)).length, 5);
  }
  assert.deepEqual(await content(db, 'seed_heavy_3'), []);
  const other = path.join(temp.dir, 'heavy-again.db');
  await seed(other, '--users', '1', '--meals-per-user', '1', '--heavy-users', '1', '--heavy-meals', '30');
  assert.deepEqual(await content(other, 'seed_heavy_1'), await content(db, 'seed_heavy_1'), 'deterministic');
});

test('seed without --users or with --users 0 is a usage error (exit 2)', async () => {
  for (const args of [
    ['--meals-per-user', '3'],
    ['--users', '0', '--meals-per-user', '3'],
    ['--users', '2'],
    ['--users', '1', '--meals-per-user', '3', '--heavy-users', '2'],
    ['--users', '1', '--meals-per-user', '3', '--heavy-meals', '2'],
    ['--users', '1', '--meals-per-user', '3', '--heavy-users', '1', '--heavy-meals', '0'],
  ]) {
    const run = await runCli(['seed', ...args, '--db', dbA]);
    assert.equal(run.code, 2, `seed ${args.join(' ')}: ${run.stderr}`);
  }
});

test('meals export to a reader that stops early (| head) ends quietly with exit 0', async () => {
  await seed(dbB, '--users', '1', '--meals-per-user', '5000');
  const child = spawn(process.execPath, [BIN, 'meals', 'export', '--user', 'seed_1', '--db', dbB], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [first] = (await once(child.stdout, 'data')) as [Buffer];
  assert.match(first.toString(), /^id,description,title,/);
  child.stdout.destroy();
  const [code] = (await once(child, 'close')) as [number | null];
  assert.equal(stderr, '');
  assert.equal(code, 0);
});
