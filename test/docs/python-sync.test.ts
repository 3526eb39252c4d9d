import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertPage, type ApiMeal } from '../http/http-expect.js';
import { cleanEnv, makeTempDir, PROJECT_ROOT } from '../support/project.js';
import { pythonMissing } from '../support/python.js';
import { getMeals, makeMeal, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';

// The Python recipe of docs/api.md#a-sync-client-in-any-language, run as a user would run it
// against the real server over TLS: its copy must end equal to the live meals the API serves,
// through a first pass, changes, a copy edited by hand and a 410 after pruned tombstones. The
// test server has no interval, so the script (which paces itself by RateLimit-Policy) never waits.
const SCRIPT = path.join(PROJECT_ROOT, 'docs', 'examples', 'sync_meals.py');
const BEGINNING = '1970-01-01T00:00:00Z';

const SKIP = pythonMissing();

let server: ServedApp;
const work = makeTempDir('python-sync');

before(async () => {
  if (SKIP === false) server = await startInProcessServer();
});

after(async () => {
  if (SKIP === false) await server.stop();
  work.remove();
});

interface Follower {
  readonly userId: string;
  readonly key: string;
  readonly state: string;
  readonly copy: string;
}

async function newFollower(label: string): Promise<Follower> {
  const userId = newUserId(label);
  const { key } = await server.createKey(userId);
  return {
    userId,
    key,
    state: path.join(work.dir, `${userId}.state.json`),
    copy: path.join(work.dir, `${userId}.jsonl`),
  };
}

/** Runs the script until caught up; the key goes in the environment, as the docs say. */
async function runSync(follower: Follower, extra: readonly string[] = []): Promise<{ code: number; stderr: string }> {
  const args = [SCRIPT, '--url', server.url, '--ca', path.join(server.dir, 'tls', 'cert.pem')];
  args.push('--state', follower.state, '--copy', follower.copy, '--until-caught-up', '--wait', '0', ...extra);
  const env = cleanEnv({ MEAL_EXPORT_API_KEY: follower.key });
  const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile('python3', args, { env, timeout: 60_000, encoding: 'utf8' }, (error, _stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stderr });
    });
  });
  assert.ok(!run.stderr.includes(follower.key), 'the key is never printed');
  return run;
}

async function caughtUp(follower: Follower, extra: readonly string[] = []): Promise<string> {
  const { code, stderr } = await runSync(follower, extra);
  assert.equal(code, 0, stderr);
  assert.match(stderr, /caught up/);
  return stderr;
}

const byId = (meals: readonly ApiMeal[]) => [...meals].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** The user's live meals, read through the API (one page: the tests hold a few). */
async function liveMeals(follower: Follower): Promise<ApiMeal[]> {
  const page = assertPage(await getMeals(server, follower.key, { lastModifiedSince: BEGINNING, limit: '5000' }));
  assert.equal(page.hasMore, false);
  return byId(page.meals);
}

function copyLines(follower: Follower): string[] {
  return readFileSync(follower.copy, 'utf8').split('\n').filter(Boolean);
}

async function assertCopyIsLive(follower: Follower): Promise<void> {
  const copy = copyLines(follower).map((line) => JSON.parse(line) as ApiMeal);
  assert.deepEqual(byId(copy), await liveMeals(follower));
}

function state(follower: Follower): Record<string, unknown> {
  return JSON.parse(readFileSync(follower.state, 'utf8')) as Record<string, unknown>;
}

describe('the Python sync recipe against the real server', { skip: SKIP }, () => {
  test("--until-caught-up with the page's --wait 120 stops at the first caught-up page, without holding a long poll", async () => {
    const follower = await newFollower('pyquick');
    await server.importMeals(follower.userId, [makeMeal('q1'), makeMeal('q2')]);
    const started = Date.now();
    // docs/api.md's command, --wait 120, with --until-caught-up: nothing changes while it runs.
    await caughtUp(follower, ['--wait', '120']);
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms: it waited out a long poll`);
    await assertCopyIsLive(follower);
  });

  test('a first pass, then changes and a deletion, then a copy edited by hand are all put right', async () => {
    const follower = await newFollower('pysync');
    const ids = ['café-☕', 'måltid-ø', '食事-1', 'a', 'b', 'c', 'd'];
    await server.importMeals(
      follower.userId,
      ids.map((id) => makeMeal(id)),
    );
    // Pages of 3, so that the pass follows its cursor.
    await caughtUp(follower, ['--limit', '3']);
    await assertCopyIsLive(follower);
    const newest =
      (await liveMeals(follower))
        .map((meal) => meal.modifiedAt)
        .sort()
        .at(-1) ?? '';
    assert.equal(state(follower).phase, 'follow');
    assert.equal(
      state(follower).followFrom,
      new Date(Date.parse(newest) + 1).toISOString(),
      'Meals-Last-Modified + 1 ms',
    );

    await server.importMeals(follower.userId, [makeMeal('b', { title: 'changed' }), makeMeal('e'), makeMeal('☕-2')]);
    await server.deleteMeal(follower.userId, 'café-☕');
    // A held request on the way: the hold ends after its 1 s with the empty page.
    const followed = await caughtUp(follower, ['--limit', '3', '--wait', '1']);
    assert.doesNotMatch(followed, /starting again/);
    await assertCopyIsLive(follower);
    assert.ok(!copyLines(follower).some((line) => line.includes('"café-☕"')), 'the deleted meal is gone');

    const lines = copyLines(follower);
    writeFileSync(follower.copy, lines.slice(1).join('\n') + '\n');
    const repaired = await caughtUp(follower);
    assert.match(repaired, /Meals-Digest differs/);
    assert.equal(repaired.match(/starting again/g)?.length, 1);
    await assertCopyIsLive(follower);
    assert.equal(copyLines(follower).length, lines.length);
  });

  test('a 410 after pruned tombstones starts again without includeDeleted, once, and never loops', async () => {
    const follower = await newFollower('py410');
    const meals = [makeMeal(), makeMeal(), makeMeal(), makeMeal()];
    await server.importMeals(follower.userId, meals);
    await caughtUp(follower);

    // Deleted and pruned before the follower saw the tombstone: its position is behind it.
    await server.deleteMeal(follower.userId, String(meals[1]?.id));
    assert.ok((await server.pruneTombstones(0)).pruned >= 1);
    const resynced = await caughtUp(follower);
    assert.match(resynced, /410 resync_required: starting again from the beginning, without includeDeleted/);
    assert.equal(resynced.match(/starting again/g)?.length, 1);
    await assertCopyIsLive(follower);
    assert.equal(copyLines(follower).length, 3);

    // A restart already made and the copy not yet checked: a second one stops instead of looping.
    await server.deleteMeal(follower.userId, String(meals[2]?.id));
    await server.pruneTombstones(0);
    writeFileSync(follower.state, JSON.stringify({ ...state(follower), restarts: 1 }));
    const stopped = await runSync(follower);
    assert.equal(stopped.code, 1, stopped.stderr);
    assert.match(stopped.stderr, /stopping rather than loop/);
  });
});
