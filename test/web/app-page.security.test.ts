import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { CONTENT_SECURITY_POLICY } from '../../src/web/page-headers.js';
import { digestSecretToken, newSecretToken } from '../../src/web/secret-token.js';
import { SESSION_COOKIE } from '../../src/web/sessions.js';
import { cliJson, runCli } from '../support/cli.js';
import { newUserId, request, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { appPageUrl, asShown, pageRequest, tokenOf } from './page-client.js';

/** The app page's web security from Node, as a forger or a careless client would talk to it. */
describe('the app page: security over HTTPS', () => {
  let server: ServedApp;
  let app: string;
  let storage: Storage;

  const loginLink = async (userId: string) =>
    (await cliJson<{ url: string }>(['users', 'login-link', '--user', userId, '--db', server.db, '--public-url', app]))
      .url;
  const signIn = (link: string) =>
    pageRequest(app, { path: '/login', headers: { origin: app }, form: { token: tokenOf(link) } });
  const cookieOf = (setCookie: string | string[] | undefined) => String(setCookie).split(';')[0] ?? '';

  before(async () => {
    server = await startInProcessServer({ extraArgs: ['--app-port', '0'] });
    app = await appPageUrl(server);
    storage = await openSqliteStorage(server.db);
  });

  after(async () => {
    await storage?.close();
    await server?.stop();
  });

  test('every answer carries the strict CSP, no framing, nosniff, no-store and HSTS: pages, refusals, 404s, files', async () => {
    const answers = await Promise.all([
      pageRequest(app, { path: '/' }),
      pageRequest(app, { path: '/nowhere' }),
      pageRequest(app, { path: '/login?token=abc' }),
      pageRequest(app, { path: '/login', form: { token: 'abc' } }),
      pageRequest(app, { path: '/static/app.css' }),
      pageRequest(app, { path: '/static/copy-button.js' }),
    ]);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [401, 404, 200, 403, 200, 200],
    );
    for (const answer of answers) {
      assert.equal(answer.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
      assert.match(CONTENT_SECURITY_POLICY, /frame-ancestors 'none'/);
      assert.equal(answer.headers['x-frame-options'], 'DENY');
      assert.equal(answer.headers['x-content-type-options'], 'nosniff');
      assert.equal(answer.headers['strict-transport-security'], 'max-age=31536000');
    }
    assert.equal(answers[0]?.headers['cache-control'], 'no-store');
    assert.match(String(answers[4]?.headers['content-type']), /^text\/css/);
    assert.match(String(answers[5]?.headers['content-type']), /^text\/javascript/);
    assert.ok(!/<script>|style=/.test(answers[2]?.text ?? ''), 'no inline script or style');
  });

  test('opening a login link changes nothing; posting it from another site is refused and leaves it usable', async () => {
    const link = await loginLink(newUserId('sec'));
    for (let i = 0; i < 2; i += 1)
      assert.equal((await pageRequest(app, { path: new URL(link).pathname + new URL(link).search })).status, 200);
    const forged = await pageRequest(app, {
      path: '/login',
      headers: { origin: 'https://evil.example' },
      form: { token: tokenOf(link) },
    });
    assert.equal(forged.status, 403, 'login CSRF: another site cannot sign this browser in');
    assert.equal(
      (await pageRequest(app, { path: '/login', form: { token: tokenOf(link) } })).status,
      403,
      'nor can a post without Origin',
    );
    assert.equal((await signIn(link)).status, 303);
  });

  test('an expired login link and an expired session are refused', async () => {
    const userId = newUserId('sec');
    const [token, sessionId] = [newSecretToken(), newSecretToken()];
    const now = Date.now();
    await storage.signIns.createLoginToken({
      digest: digestSecretToken(token),
      userId,
      createdAt: now - 16 * 60_000,
      expiresAt: now - 60_000,
    });
    await storage.signIns.createSession({
      digest: digestSecretToken(sessionId),
      userId,
      createdAt: now - 61 * 60_000,
      expiresAt: now - 60_000,
    });
    const late = await pageRequest(app, { path: '/login', headers: { origin: app }, form: { token } });
    assert.equal(late.status, 400);
    const stale = await pageRequest(app, { path: '/', headers: { cookie: `${SESSION_COOKIE}=${sessionId}` } });
    assert.equal(stale.status, 401);
  });

  test('the store holds only digests of login tokens and session ids', async () => {
    const link = await loginLink(newUserId('sec'));
    const token = tokenOf(link);
    const signedIn = await signIn(link);
    const sessionId = cookieOf(signedIn.headers['set-cookie']).split('=')[1] ?? '';
    assert.equal(sessionId.length, 43);
    const db = new BetterSqlite3(server.db, { readonly: true });
    try {
      const sessions = db.prepare('SELECT digest FROM app_sessions').pluck().all() as Buffer[];
      assert.ok(sessions.some((digest) => digest.equals(digestSecretToken(sessionId))));
      const everything = JSON.stringify([
        db.prepare('SELECT * FROM app_sessions').all(),
        db.prepare('SELECT * FROM login_tokens').all(),
      ]);
      assert.ok(!everything.includes(sessionId) && !everything.includes(token));
    } finally {
      db.close();
    }
  });

  test('a form that is not urlencoded is refused, and the key name is escaped on the page', async () => {
    const link = await loginLink(newUserId('sec'));
    const cookie = cookieOf((await signIn(link)).headers['set-cookie']);
    const page = await pageRequest(app, { path: '/', headers: { cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const json = await pageRequest(app, {
      method: 'POST',
      path: '/keys',
      headers: { cookie, origin: app, 'content-type': 'application/json' },
    });
    assert.equal(json.status, 415);
    const keyId = /name="keyId" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const made = await asShown(
      app,
      await pageRequest(app, {
        path: '/keys',
        headers: { cookie, origin: app },
        form: { csrf, keyId, name: '<img src=x onerror=alert(1)>', expiresIn: '' },
      }),
      cookie,
    );
    assert.equal(made.status, 303);
    assert.ok(made.text.includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.ok(!made.text.includes('<img src=x'));
  });

  test('"Stay signed in" returns to one of the page\'s own addresses, its query kept, and never to another site', async () => {
    const cookie = cookieOf((await signIn(await loginLink(newUserId('stay')))).headers['set-cookie']);
    const page = await pageRequest(app, { path: '/', headers: { cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const stay = async (back: string) => {
      const answer = await pageRequest(app, {
        path: '/session',
        headers: { cookie, origin: app },
        form: { csrf, back },
      });
      assert.equal(answer.status, 303, back);
      return answer.headers.location;
    };
    for (const own of ['/', '/?from=2026-03-10&to=2026-03-01', '/?webhook=wh_1&event=evt%20x', '/keys/key_1/revoke']) {
      assert.equal(await stay(own), own);
    }
    for (const elsewhere of [
      '//evil.example/',
      'https://evil.example/',
      '/\\evil.example',
      '/?next=<script>',
      '/?a=b\r\nset-cookie: x=1',
      '/#fragment',
      '',
    ]) {
      assert.equal(await stay(elsewhere), '/', JSON.stringify(elsewhere));
    }
  });

  test("when the store cannot keep a form's result for the next page, the answer shows it itself", async () => {
    const cookie = cookieOf((await signIn(await loginLink(newUserId('noflash')))).headers['set-cookie']);
    const page = await pageRequest(app, { path: '/', headers: { cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const keyId = /name="keyId" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    // The store refuses the one-shot result's write, as a full disk would; the key itself is written.
    const db = new BetterSqlite3(server.db);
    db.exec(`CREATE TRIGGER refuse_flashes BEFORE INSERT ON app_session_flashes
      BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
    try {
      const answer = await pageRequest(app, {
        path: '/keys',
        headers: { cookie, origin: app },
        form: { csrf, keyId, name: 'kept anyway', expiresIn: '' },
      });
      assert.equal(answer.status, 200, 'the page itself, not a redirect to a page that would not know');
      assert.equal((answer.text.match(/mxk_[0-9A-Za-z]{49}/g) ?? []).length, 1, 'the new key is shown, once');
      assert.match(answer.text, /kept anyway/);
      assert.match(server.logs(), /could not keep a form's result for the next page/);
    } finally {
      db.exec('DROP TRIGGER refuse_flashes');
      db.close();
    }
    const next = await pageRequest(app, { path: '/', headers: { cookie } });
    assert.doesNotMatch(next.text, /mxk_[0-9A-Za-z]{49}/, 'and not again on the next page');
  });

  test('the generate form sent twice (a reload, a double click) makes one key; a form without its key id makes none', async () => {
    const userId = newUserId('twice');
    const cookie = cookieOf((await signIn(await loginLink(userId))).headers['set-cookie']);
    const page = await pageRequest(app, { path: '/', headers: { cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const keyId = /name="keyId" value="(key_[0-9A-Za-z]{16})"/.exec(page.text)?.[1];
    assert.ok(keyId !== undefined, 'the form names the key it makes');
    // As a browser sends it, and follows its 303 to the page that shows what it did.
    const send = async (form: Record<string, string>) =>
      asShown(
        app,
        await pageRequest(app, {
          path: '/keys',
          headers: { cookie, origin: app },
          form: { csrf, expiresIn: '', ...form },
        }),
        cookie,
      );

    const [first, second] = [await send({ keyId, name: 'site' }), await send({ keyId, name: 'site' })];
    assert.equal(first.status, 303);
    assert.equal(first.location, '/', 'the address carries nothing');
    assert.equal((first.text.match(/mxk_[0-9A-Za-z]{49}/g) ?? []).length, 1, 'the key is shown once');
    assert.equal(second.status, 303);
    assert.match(second.text, /This form was sent already/);
    assert.doesNotMatch(second.text, /mxk_[0-9A-Za-z]{49}/, 'not shown again');
    assert.deepEqual(
      (await storage.keys.listApiKeys(userId)).map((key) => key.id),
      [keyId],
    );

    for (const stale of [{}, { keyId: 'key_short' }, { keyId: `${keyId}x` }]) {
      const refused = await send({ ...stale, name: 'stale' });
      assert.equal(refused.status, 303, JSON.stringify(stale));
      assert.match(refused.text, /This form is out of date/);
    }
    assert.equal((await storage.keys.listApiKeys(userId)).length, 1, 'no key was made');
    const fresh = /name="keyId" value="([^"]+)"/.exec(second.text)?.[1];
    assert.ok(fresh !== undefined && fresh !== keyId, 'each page gives its form a new id');
    assert.equal((await send({ keyId: fresh, name: 'another' })).status, 303);
  });

  test('the CSV download opens safely in a spreadsheet: a byte order mark, and no text cell runs as a formula', async () => {
    const userId = newUserId('csv');
    const titles = ['=SUM(A1:A9)', "+cmd|' /C calc'!A0", '@SUM(A1)', '-2+3', 'Crème brûlée'];
    const meals = titles.map((title, i) => ({ id: `c${i}`, title, type: 'snack', date: '2025-03-01T10:00:00Z' }));
    const input = meals.map((meal) => JSON.stringify(meal)).join('\n');
    await cliJson(['meals', 'import', '--user', userId, '-', '--format', 'jsonl', '--db', server.db], { input });
    const cookie = cookieOf((await signIn(await loginLink(userId))).headers['set-cookie']);

    const download = await pageRequest(app, { path: '/export.csv', headers: { cookie } });
    assert.equal(download.status, 200);
    assert.equal(download.headers['content-type'], 'text/csv; charset=utf-8');
    assert.deepEqual([...download.raw.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'a UTF-8 byte order mark');
    const rows = download.text.split('\r\n').slice(1, -1);
    assert.deepEqual(
      rows.map((row) => row.split(',')[2]),
      ["'=SUM(A1:A9)", "'+cmd|' /C calc'!A0", "'@SUM(A1)", "'-2+3", 'Crème brûlée'],
    );

    // The page's file is `meals export --for-spreadsheet`'s; plain `meals export` stays exact.
    const cli = (...extra: string[]) => runCli(['meals', 'export', '--user', userId, '--db', server.db, ...extra]);
    const [forPeople, forPrograms] = [await cli('--for-spreadsheet'), await cli()];
    assert.equal(download.text, forPeople.stdout);
    // Without its two local columns (utcOffset's neighbours, empty here) and the guards, it is the program's file.
    const withoutLocal = (row: string) => [...row.split(',').slice(0, 6), ...row.split(',').slice(8)].join(',');
    assert.equal(
      forPrograms.stdout,
      download.text
        .slice(1)
        .split('\r\n')
        .map(withoutLocal)
        .join('\r\n')
        .replace(/,'([=+\-@])/g, ',$1'),
    );
    assert.ok(!forPrograms.stdout.startsWith('\uFEFF') && forPrograms.stdout.includes(',=SUM(A1:A9),'));
  });

  test("the CSV download's days are the person's: a range takes each meal on its local day where known, its UTC day where not", async () => {
    const userId = newUserId('days');
    // Around midnight of the 25th on each side of UTC, and one without an offset.
    const meals = [
      { id: 'sf-late', type: 'dinner', date: '2026-11-25T23:30:00-08:00' }, // 2026-11-26T07:30Z
      { id: 'sf-early', type: 'snack', date: '2026-11-26T00:30:00-08:00' }, // 2026-11-26T08:30Z
      { id: 'tokyo-late', type: 'snack', date: '2026-11-25T23:30:00+09:00' }, // 2026-11-25T14:30Z
      { id: 'tokyo-early', type: 'breakfast', date: '2026-11-25T15:30:00Z', utcOffset: '+09:00' }, // 00:30 on the 26th
      { id: 'unknown', type: 'lunch', date: '2026-11-25T23:59:00Z' },
    ];
    const input = meals.map((meal) => JSON.stringify(meal)).join('\n');
    await cliJson(['meals', 'import', '--user', userId, '-', '--format', 'jsonl', '--db', server.db], { input });
    const cookie = cookieOf((await signIn(await loginLink(userId))).headers['set-cookie']);
    const day = async (date: string) => {
      const download = await pageRequest(app, { path: `/export.csv?from=${date}&to=${date}`, headers: { cookie } });
      assert.equal(download.status, 200, download.text);
      return download.text
        .split('\r\n')
        .slice(1, -1)
        .map((row) => row.split(',').slice(0, 8))
        .map(([id, , , , date, utcOffset, localDate, localTime]) =>
          [id, date, utcOffset, localDate, localTime].join(' '),
        );
    };
    assert.deepEqual((await day('2026-11-25')).sort(), [
      "sf-late 2026-11-26T07:30:00.000Z '-08:00 2026-11-25 23:30",
      "tokyo-late 2026-11-25T14:30:00.000Z '+09:00 2026-11-25 23:30",
      'unknown 2026-11-25T23:59:00.000Z  2026-11-25 23:59',
    ]);
    assert.deepEqual((await day('2026-11-26')).sort(), [
      "sf-early 2026-11-26T08:30:00.000Z '-08:00 2026-11-26 00:30",
      "tokyo-early 2026-11-25T15:30:00.000Z '+09:00 2026-11-26 00:30",
    ]);
    const page = await pageRequest(app, { path: '/', headers: { cookie } });
    assert.match(page.text, /a meal counts on the day it was eaten where you were/);
  });

  test('the JSON API stays as it was: it has no page routes and still refuses browsers', async () => {
    const login = await request(server, { path: '/login' });
    assert.equal(login.status, 404);
    assert.match(String(login.headers['content-type']), /^application\/json/);
    const browser = await request(server, { path: '/v1/meals?lastModifiedSince=2025-01-01', headers: { origin: app } });
    assert.equal(browser.status, 403);
  });
});
