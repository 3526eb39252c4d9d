import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
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

test('a pull killed with SIGKILL after its first page and started again ends with the same file, no duplicate and nothing lost', async () => {
  const userId = newUserId('resume');
  const { key } = await server.createKey(userId);
  const meals = Array.from({ length: 6 }, () => makeMeal());
  await server.importMeals(userId, meals);
  const files = pullFiles(temp.dir, 'killed');

  const running = spawnPull(server, key, files, ['--limit', '3']);
  await waitFor('the first saved state', () => existsSync(files.state));
  running.child.kill('SIGKILL');
  const { signal } = await running.exited;
  assert.equal(signal, 'SIGKILL');
  const state = JSON.parse(readFileSync(files.state, 'utf8')) as Record<string, unknown>;
  assert.equal(typeof state.cursor, 'string', 'killed mid-way, with a cursor saved');
  const partial = csvRows(fileText(files.out)).slice(1);
  assert.ok(partial.length >= 3 && partial.length < 6, `${partial.length} meals after the kill`);

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
