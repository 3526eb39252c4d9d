import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type MealHost, MealHostError, openMealHost } from '../../src/meal-host/index.js';
import { cleanEnv, PROJECT_ROOT } from '../support/project.js';
import { getMeals, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { appPageUrl, pageRequest, tokenOf } from '../web/page-client.js';

interface Page {
  readonly count: number;
  readonly meals: { id: string; title?: string; modifiedAt: string; deleted?: boolean }[];
}

/** meal-export/host used as the diet app's back end would, against the running server's store. */
describe('the host module (meal-export/host)', () => {
  let server: ServedApp;
  let app: string;
  let host: MealHost;

  before(async () => {
    server = await startInProcessServer({ extraArgs: ['--app-port', '0'] });
    app = await appPageUrl(server);
    host = await openMealHost(server.db, { publicUrl: app });
  });

  after(async () => {
    await host?.close();
    await server?.stop();
  });

  test('meals the back end records and deletes reach API clients, in change order', async () => {
    const userId = newUserId('host');
    // Within the tombstone retention: an older start with includeDeleted is answered 410.
    const since = new Date(Date.now() - 60_000).toISOString();
    const written = await host.upsertMeals(userId, [
      { id: 'h1', title: 'Porridge', type: 'breakfast', date: '2025-03-01T07:30:00Z', caloriesTotal: 350 },
      { title: 'Soup', type: 'lunch', date: '2025-03-01T12:00:00Z' },
    ]);
    assert.equal(written.created, 2);
    assert.equal(written.ids[0], 'h1');
    assert.deepEqual(
      await host.upsertMeals(userId, [{ id: 'h1', title: 'Oats', type: 'breakfast', date: '2025-03-01T07:30:00Z' }]),
      {
        ids: ['h1'],
        created: 0,
        updated: 1,
        unchanged: 0,
        stale: 0,
      },
    );
    assert.equal(await host.deleteMeal(userId, written.ids[1] ?? ''), 'deleted');
    assert.equal(await host.deleteMeal(userId, written.ids[1] ?? ''), 'already_deleted');
    assert.equal(await host.deleteMeal(userId, 'nope'), 'not_found');

    const { key } = await host.createKey(userId, { name: 'sync' });
    const answer = await getMeals(server, key, { lastModifiedSince: since, includeDeleted: 'true' });
    assert.equal(answer.status, 200);
    const page = answer.json as Page;
    assert.deepEqual(
      page.meals.map((meal) => [meal.id, meal.deleted]),
      [
        ['h1', false],
        [written.ids[1], true],
      ],
    );
    assert.equal(page.meals[0]?.title, 'Oats');
    assert.ok((page.meals[0]?.modifiedAt ?? '') < (page.meals[1]?.modifiedAt ?? ''), 'the later change comes later');
  });

  test('a meal the back end saves unchanged is no change: counted unchanged, and a follower at its cursor hears nothing', async () => {
    const userId = newUserId('host');
    const since = new Date(Date.now() - 60_000).toISOString();
    const meal = {
      id: `same_${userId}`,
      title: 'Soup',
      type: 'lunch',
      date: '2025-03-01T12:00:00Z',
      fats_g: 0,
    } as const;
    await host.upsertMeals(userId, [meal, { id: `other_${userId}`, type: 'snack', date: '2025-03-01T00:00:00Z' }]);
    const { key } = await host.createKey(userId);
    const query = { lastModifiedSince: since, includeDeleted: 'true' };
    const synced = (await getMeals(server, key, query)).json as Page & { nextCursor: string };
    assert.equal(synced.count, 2);

    // Absent text is "" and absent numbers null, as the first save had them: the same meal.
    assert.deepEqual(await host.upsertMeals(userId, [{ ...meal, description: '', caloriesTotal: null }]), {
      ids: [meal.id],
      created: 0,
      updated: 0,
      unchanged: 1,
      stale: 0,
    });
    const after = (await getMeals(server, key, { ...query, cursor: synced.nextCursor })).json as Page;
    assert.equal(after.count, 0, 'nothing new after the cursor');
    const again = (await getMeals(server, key, query)).json as Page;
    assert.deepEqual(again.meals, synced.meals, 'the same meals with the same modifiedAt');

    // One field differing (null where there was 0) is a change, after the cursor.
    assert.equal((await host.upsertMeals(userId, [{ ...meal, fats_g: null }])).updated, 1);
    const changed = (await getMeals(server, key, { ...query, cursor: synced.nextCursor })).json as Page;
    assert.deepEqual(
      changed.meals.map((m) => m.id),
      [meal.id],
    );
  });

  test('a bad record, or another user’s meal id, writes nothing and names the record', async () => {
    const [owner, other] = [newUserId('host'), newUserId('host')];
    await host.upsertMeals(owner, [{ id: `owned_${owner}`, type: 'snack', date: '2025-03-01T00:00:00Z' }]);
    await assert.rejects(
      host.upsertMeals(other, [
        { id: `fine_${other}`, type: 'snack', date: '2025-03-01T00:00:00Z' },
        { type: 'brunch' as 'lunch', date: '2025-03-01T00:00:00Z' },
      ]),
      (error: unknown) => error instanceof MealHostError && error.code === 'invalid_meal' && error.index === 1,
    );
    await assert.rejects(
      host.upsertMeals(other, [
        { id: `fine_${other}`, type: 'snack', date: '2025-03-01T00:00:00Z' },
        { id: `owned_${owner}`, type: 'snack', date: '2025-03-01T00:00:00Z' },
      ]),
      (error: unknown) => error instanceof MealHostError && error.code === 'id_taken' && error.index === 1,
    );
    const { key } = await host.createKey(other);
    const answer = await getMeals(server, key, { lastModifiedSince: '2025-01-01' });
    assert.equal((answer.json as Page).count, 0, 'nothing of either call was written');
  });

  test('keys: listed without the secret, revoked only by their own user, at most 10 active', async () => {
    const [userId, stranger] = [newUserId('host'), newUserId('host')];
    const created = await host.createKey(userId, { name: 'site', expiresIn: '30d' });
    assert.deepEqual(Object.keys(created), ['id', 'key', 'name', 'createdAt', 'expiresAt']);
    assert.ok(created.expiresAt !== null);
    const [listed] = await host.listKeys(userId);
    assert.equal(listed?.status, 'active');
    assert.ok(!JSON.stringify(listed).includes(created.key));
    assert.equal(await host.revokeKey(stranger, created.id), false, 'another user cannot revoke it');
    assert.equal(await host.revokeKey(userId, created.id), true);
    assert.equal((await host.listKeys(userId))[0]?.status, 'revoked');
    for (let i = 0; i < 10; i += 1) await host.createKey(userId);
    await assert.rejects(
      host.createKey(userId),
      (error: unknown) => error instanceof MealHostError && error.code === 'too_many_keys',
    );
    await assert.rejects(host.createKey(userId, { expiresIn: 'soon' }), { code: 'invalid_argument' });
    await assert.rejects(host.listKeys(''), { code: 'invalid_user_id' });
  });

  test('a login link from the back end signs in on the app page, once', async () => {
    const userId = newUserId('host');
    const { url } = await host.createLoginLink(userId);
    assert.ok(url.startsWith(`${app}/login?token=`));
    const form = { token: tokenOf(url) };
    const first = await pageRequest(app, { path: '/login', headers: { origin: app }, form });
    assert.equal(first.status, 303);
    assert.match(String(first.headers['set-cookie']), /^__Host-meal-export-session=/);
    const again = await pageRequest(app, { path: '/login', headers: { origin: app }, form });
    assert.equal(again.status, 400);
  });

  test('a login link made with next lands there once signed in; next elsewhere is refused', async () => {
    const next = '/oauth/authorize?client_id=app_1&state=s';
    const { url } = await host.createLoginLink(newUserId('next'), { next });
    const opened = await pageRequest(app, { path: new URL(url).pathname + new URL(url).search });
    assert.match(opened.text, /name="next" value="\/oauth\/authorize\?client_id=app_1&amp;state=s"/);
    const signedIn = await pageRequest(app, {
      path: '/login',
      headers: { origin: app },
      form: { token: tokenOf(url), next },
    });
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.headers.location, next);
    const forged = await host.createLoginLink(newUserId('forged'));
    const elsewhere = await pageRequest(app, {
      path: '/login',
      headers: { origin: app },
      form: { token: tokenOf(forged.url), next: '//evil.example/' },
    });
    assert.equal(elsewhere.headers.location, '/', 'a next that is not a path of the page lands on the page');
    await assert.rejects(host.createLoginLink(newUserId('x'), { next: 'https://evil.example/' }), {
      code: 'invalid_argument',
    });
  });

  test('the package exports meal-export/host, with its types, from the build', () => {
    // The types the package declares for its export, wherever the module's folder is.
    const { exports } = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, { types?: string }>;
    };
    const types = exports['./host']?.types ?? 'no types declared';
    assert.ok(existsSync(path.join(PROJECT_ROOT, types)), `no ${types}, the types package.json declares for ./host`);
    const child = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('meal-export/host'); console.log(Object.keys(m).sort().join(','))",
      ],
      { cwd: PROJECT_ROOT, env: cleanEnv(), encoding: 'utf8' },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'MealHostError,openMealHost');
  });
});
