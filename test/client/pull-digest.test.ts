import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { makeTempDir } from '../support/project.js';
import { getMeals, makeMeal, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { assertSameAsExport, fileText, pull, pullArgs, type PullFiles, pullFiles } from './pull-harness.js';

// pull checks its copy against Meals-Digest at every catch-up
// (docs/api.md#verifying-a-copy-meals-digest) and rebuilds a copy that differs.
let server: ServedApp;
const temp = makeTempDir('pull-digest');

before(async () => {
  server = await startInProcessServer();
});

after(async () => {
  await server.stop();
  temp.remove();
});

async function pulledUser(name: string, count: number, extension: 'csv' | 'jsonl' = 'jsonl') {
  const userId = newUserId('pulldigest');
  const { key } = await server.createKey(userId);
  await server.importMeals(userId, [
    makeMeal(`${name}-café-☕`),
    ...Array.from({ length: count - 1 }, () => makeMeal()),
  ]);
  const files = pullFiles(temp.dir, name, extension);
  assert.equal((await pull(server, key, files)).verified, true);
  return { userId, key, files };
}

/** `pull --json` whose stderr is returned with its summary. */
async function pullTold(key: string, files: PullFiles) {
  const run = await runCli([...pullArgs(server, files), '--json'], { env: { MEAL_EXPORT_API_KEY: key } });
  assert.equal(run.code, 0, run.stderr);
  return { stderr: run.stderr, summary: JSON.parse(run.stdout) as { total: number; verified: boolean } };
}

const REBUILT =
  /^meal-export: .*\.(jsonl|csv) does not match the server's meals \(it holds count=\d+, sum=[0-9a-f]{32}, the server count=\d+, sum=[0-9a-f]{32}\): rebuilding it from the beginning\n$/;

async function serverDigest(key: string): Promise<string> {
  const response = await getMeals(server, key, { lastModifiedSince: '1970-01-01', limit: '5000' });
  return String(response.headers['meals-digest']);
}

const lines = (file: string) => fileText(file).split('\n').filter(Boolean);

describe('pull and Meals-Digest', { concurrency: 3 }, () => {
  test('a line removed from the JSON Lines copy by hand: the next pull says so, rebuilds it and is verified', async () => {
    const { userId, key, files } = await pulledUser('removed', 4);
    const kept = lines(files.out);
    writeFileSync(files.out, `${[...kept.slice(0, 1), ...kept.slice(2)].join('\n')}\n`);
    const { stderr, summary } = await pullTold(key, files);
    assert.match(stderr, REBUILT);
    assert.match(stderr, /it holds count=3, .* the server count=4, /);
    assert.deepEqual(summary, { ...summary, total: 4, verified: true });
    await assertSameAsExport(server, userId, files.out, 'jsonl');
    // Repaired for good: the run after is quiet.
    assert.equal((await pullTold(key, files)).stderr, '');
  });

  test('a made-up meal added to the copy is taken out by the rebuild; a field changed by hand is no difference', async () => {
    const { userId, key, files } = await pulledUser('added', 3);
    const [first = '', ...rest] = lines(files.out);
    const retitled = JSON.stringify({ ...(JSON.parse(first) as object), title: 'edited by hand' });
    writeFileSync(files.out, `${[retitled, ...rest].join('\n')}\n`);
    const quiet = await pullTold(key, files);
    assert.equal(quiet.stderr, '', 'the same meals: nothing to repair');
    assert.equal(quiet.summary.verified, true);

    const madeUp = JSON.stringify({ ...(JSON.parse(first) as object), id: 'made-up' });
    writeFileSync(files.out, `${[...lines(files.out), madeUp].join('\n')}\n`);
    await server.importMeals(userId, [makeMeal()]);
    const { stderr, summary } = await pullTold(key, files);
    assert.match(stderr, REBUILT);
    assert.deepEqual(summary, { ...summary, total: 4, verified: true });
    await assertSameAsExport(server, userId, files.out, 'jsonl');
  });

  test('the state keeps the digest of --out; one saved before it had none still works, and a CSV edited meanwhile is repaired', async () => {
    const { userId, key, files } = await pulledUser('older-state', 3, 'csv');
    const state = JSON.parse(readFileSync(files.state, 'utf8')) as Record<string, unknown>;
    assert.equal(state.digest, await serverDigest(key));
    const { digest: _dropped, ...older } = state;
    writeFileSync(files.state, JSON.stringify(older));
    await server.importMeals(userId, [makeMeal()]);
    const { stderr, summary } = await pullTold(key, files);
    assert.equal(stderr, '');
    assert.deepEqual(summary, { ...summary, total: 4, verified: true });
    const saved = JSON.parse(readFileSync(files.state, 'utf8')) as Record<string, unknown>;
    assert.equal(saved.digest, await serverDigest(key));

    // An older state and a row removed from the CSV (its header line kept): repaired too.
    writeFileSync(files.state, JSON.stringify(older));
    const rows = fileText(files.out).split('\r\n');
    writeFileSync(files.out, [...rows.slice(0, 2), ...rows.slice(3)].join('\r\n'));
    const repaired = await pullTold(key, files);
    assert.match(repaired.stderr, REBUILT);
    assert.equal(repaired.summary.verified, true);
    await assertSameAsExport(server, userId, files.out, 'csv');
  });
});
