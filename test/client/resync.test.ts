import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createMealExportClient, type SyncStep } from '../../src/client/index.js';
import { runCli } from '../support/cli.js';
import { makeTempDir } from '../support/project.js';
import { makeMeal, newUserId, startTestServer, type TestServer } from '../support/server.js';
import { assertSameAsExport, cli, fileText, pull, pullArgs, pullFiles } from './pull-harness.js';

// Tombstones kept one day: a starting point two days old is answered 410 resync_required.
let server: TestServer;
const temp = makeTempDir('resync');
const twoDaysAgo = () => new Date(Date.now() - 2 * 86_400_000).toISOString();

before(async () => {
  server = await startTestServer({ extraArgs: ['--tombstone-days', '1'] });
});

after(async () => {
  await server.stop();
  temp.remove();
});

async function userWith(count: number) {
  const userId = newUserId('resync');
  const { key } = await server.createKey(userId);
  const meals = Array.from({ length: count }, () => makeMeal());
  await server.importMeals(userId, meals);
  return { userId, key, ids: meals.map((m) => String(m.id)) };
}

describe('410 resync_required', { concurrency: true }, () => {
  test('sync starts again from the beginning without tombstones, says so, flags the first page, then follows', async () => {
    const user = await userWith(3);
    const ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
    const client = createMealExportClient({ baseUrl: server.url, apiKey: user.key, ca });
    const reasons: Error[] = [];
    const steps: SyncStep[] = [];
    const from = { lastModifiedSince: twoDaysAgo(), cursor: null, followSince: null };
    for await (const step of client.sync({ from, limit: 2, onResync: (reason) => reasons.push(reason) })) {
      steps.push(step);
    }
    client.close();
    assert.equal(reasons.length, 1);
    assert.match(reasons[0]?.message ?? '', /^Request failed with 410 resync_required: GET \/v1\/meals$/);
    assert.deepEqual(
      steps.map((s) => s.resynced),
      [true, false, false, false],
    );
    assert.equal(steps[0]?.page.lastModifiedSince, '1970-01-01T00:00:00.000Z');
    const pass = steps.slice(0, 2).flatMap((s) => s.page.meals);
    assert.deepEqual(
      pass.map((m) => [m.id, m.deleted]),
      user.ids.map((id) => [id, undefined]),
    );
    const last = steps.at(-1)?.position;
    assert.equal(last?.followSince, null);
    assert.ok(Date.parse(last?.lastModifiedSince ?? '') > Date.now() - 3_600_000, 'following from a recent point');
  });

  test('pull meets the 410, rebuilds its copy from scratch and ends equal to `meals export`', async () => {
    const user = await userWith(4);
    const files = pullFiles(temp.dir, 'stale');
    await pull(server, user.key, files);
    await cli('meals', 'delete', '--user', user.userId, String(user.ids[1]), '--db', server.db);
    // A copy left alone for two days, holding a meal whose tombstone is gone by now.
    const [header, first, ...rest] = fileText(files.out).split('\r\n');
    const ghost = first?.replace(/^[^,]+/, 'ghost-meal');
    writeFileSync(files.out, [header, ghost, first, ...rest].join('\r\n'));
    const state = JSON.parse(fileText(files.state)) as Record<string, unknown>;
    writeFileSync(files.state, JSON.stringify({ ...state, lastModifiedSince: twoDaysAgo(), cursor: null }));

    const run = await runCli([...pullArgs(server, files), '--json'], { env: { MEAL_EXPORT_API_KEY: user.key } });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /full resync \(410 resync_required\): rebuilding .*stale\.csv/);
    assert.equal((JSON.parse(run.stdout) as { total: number }).total, 3);
    assert.ok(!fileText(files.out).includes('ghost-meal'));
    await assertSameAsExport(server, user.userId, files.out, 'csv');
  });
});
