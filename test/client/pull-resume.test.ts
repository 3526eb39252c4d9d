import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { makeTempDir } from '../support/project.js';
import { makeMeal, newUserId, startTestServer, type TestServer } from '../support/server.js';
import { assertSameAsExport, csvRows, fileText, pull, pullFiles, spawnPull, waitFor } from './pull-harness.js';

// A 1 s interval, which pull learns from RateLimit-Policy: time to kill it between two pages.
let server: TestServer;
const temp = makeTempDir('pull-resume');

before(async () => {
  server = await startTestServer({ minIntervalMs: 1000 });
});

after(async () => {
  await server.stop();
  temp.remove();
});

/** A user with `count` meals, and a pull of them (pages of 3) killed with SIGKILL once it has saved a state. */
async function killedAfterFirstPage(name: string, count: number) {
  const userId = newUserId('resume');
  const { key } = await server.createKey(userId);
  const meals = Array.from({ length: count }, () => makeMeal());
  await server.importMeals(userId, meals);
  const files = pullFiles(temp.dir, name);

  const running = spawnPull(server, key, files, ['--limit', '3']);
  await waitFor('the first saved state', () => existsSync(files.state));
  running.child.kill('SIGKILL');
  const { signal } = await running.exited;
  assert.equal(signal, 'SIGKILL');
  const state = JSON.parse(readFileSync(files.state, 'utf8')) as Record<string, unknown>;
  assert.equal(typeof state.cursor, 'string', 'killed mid-way, with a cursor saved');
  const partial = csvRows(fileText(files.out)).slice(1);
  assert.ok(partial.length >= 3 && partial.length < count, `${partial.length} meals after the kill`);
  return { userId, key, meals, files, state };
}

test('a pull killed with SIGKILL after its first page and started again ends with the same file, no duplicate and nothing lost', async () => {
  const { userId, key, meals, files } = await killedAfterFirstPage('killed', 6);
  const summary = await pull(server, key, files, ['--limit', '3']);
  assert.equal(summary.total, 6);
  const ids = csvRows(fileText(files.out))
    .slice(1)
    .map((row) => row[0]);
  assert.equal(new Set(ids).size, ids.length, 'no duplicate');
  assert.deepEqual(
    ids,
    meals.map((m) => m.id),
  );
  await assertSameAsExport(server, userId, files.out, 'csv');
});

test('a state saved mid-pass by an earlier version (following from five minutes before the pass) still resumes, deletions made since included', async () => {
  const { userId, key, meals, files, state } = await killedAfterFirstPage('earlier-version', 9);
  // Earlier versions saved the follow's start as five minutes before the pass's first answer.
  assert.equal(typeof state.followSince, 'string');
  const earlier = new Date(Date.parse(String(state.savedAt)) - 5 * 60_000).toISOString();
  writeFileSync(files.state, JSON.stringify({ ...state, followSince: earlier }));
  // Meanwhile a meal the pass has read is deleted, and one it has not is changed.
  await server.deleteMeal(userId, String(meals[0]?.id));
  await server.importMeals(userId, [makeMeal(String(meals[8]?.id), { title: 'changed' })]);
  const summary = await pull(server, key, files, ['--limit', '3']);
  assert.equal(summary.total, 8);
  await assertSameAsExport(server, userId, files.out, 'csv');
});
