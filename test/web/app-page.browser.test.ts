import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { isWellFormedApiKey } from '../../src/domain/api-key.js';
import { cliJson, runCli } from '../support/cli.js';
import { getMeals, makeMeal, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { browserMissing, launchChromium, screenshotPath } from './browser.js';
import { appPageUrl, pageRequest } from './page-client.js';

const missing = browserMissing();
if (missing !== undefined) process.stdout.write(`# skipping the app page's browser tests: ${missing}\n`);

/**
 * The app page (docs/app.md#the-page-resources--export-api-csv) in a real browser: Playwright
 * drives Debian's Chromium against the built server (`serve --app-port 0`, HTTPS with its
 * self-signed certificate). The steps build on each other, as a person's visit does: sign in,
 * generate, use, revoke, download, sign out.
 */
describe('the app page in Chromium', { skip: missing }, () => {
  let server: ServedApp;
  let app: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let link: string;
  let key = '';
  const userId = newUserId('web');
  const consoleErrors: string[] = [];

  const loginLink = async () =>
    (await cliJson<{ url: string }>(['users', 'login-link', '--user', userId, '--db', server.db, '--public-url', app]))
      .url;
  const keyCount = async () => (await cliJson<unknown[]>(['keys', 'list', '--user', userId, '--db', server.db])).length;

  before(async () => {
    server = await startInProcessServer({ extraArgs: ['--app-port', '0'] });
    app = await appPageUrl(server);
    await server.importMeals(userId, [
      makeMeal(undefined, { title: 'Porridge, "oats"', date: '2025-03-01T07:30:00.000Z' }),
      makeMeal(undefined, { title: 'Lentil soup', date: '2025-03-02T12:15:00.000Z' }),
      makeMeal(undefined, { title: 'Apple', date: '2025-04-10T16:00:00.000Z' }),
    ]);
    browser = await launchChromium();
    // The server's certificate is self-signed: trusted for this context only.
    context = await browser.newContext({ ignoreHTTPSErrors: true, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    link = await loginLink();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('a login link signs in, with an HttpOnly, Secure, SameSite=Lax session cookie', async () => {
    await page.goto(link);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { level: 1, name: 'Export (API, CSV)' }).waitFor();
    assert.match(await page.locator('.account').innerText(), new RegExp(`Signed in as\\s+${userId}`));
    assert.equal(new URL(page.url()).pathname, '/', 'the token is no longer in the address bar');
    const [cookie, ...others] = await context.cookies(app);
    assert.equal(others.length, 0);
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.secure, true);
    assert.equal(cookie?.sameSite, 'Lax');
    assert.match(await page.content(), /You have no API keys yet/);
  });

  test('the same login link is refused the second time, in any browser', async () => {
    const other = await browser.newContext({ ignoreHTTPSErrors: true });
    try {
      const second = await other.newPage();
      await second.goto(link);
      const response = await Promise.all([
        second.waitForResponse((r) => r.request().method() === 'POST'),
        second.getByRole('button', { name: 'Continue' }).click(),
      ]);
      assert.equal(response[0].status(), 400);
      await second.getByRole('heading', { name: 'This sign-in link cannot be used' }).waitFor();
      assert.deepEqual(await other.cookies(app), [], 'no session was started');
    } finally {
      await other.close();
    }
  });

  test('generating a key shows it once, with a working copy button, and it reads the meals from Node (200)', async () => {
    await page.getByLabel('Name').fill('my <script> website');
    await page.getByLabel('Expires').selectOption('30d');
    await page.getByRole('button', { name: 'Generate a key' }).click();
    key = (await page.locator('#new-key-value').innerText()).trim();
    assert.ok(isWellFormedApiKey(key), `a key in the contract's format, got ${key.slice(0, 8)}…`);
    assert.match(await page.locator('.new-key').innerText(), /only time it is shown/);
    assert.match(await page.locator('.new-key').innerText(), /Never put it in a web page, a browser/);
    assert.match(await page.locator('table.keys').innerText(), /my <script> website/, 'the name is shown as text');

    await page.screenshot({ path: screenshotPath('app-page-new-key-desktop.png'), fullPage: true });
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), key);

    const answer = await getMeals(server, key, { lastModifiedSince: '2025-01-01' });
    assert.equal(answer.status, 200);
    assert.equal((answer.json as { count: number }).count, 3);

    await page.goto(`${app}/`);
    assert.ok(!(await page.content()).includes(key), 'after the one display, the key is never on the page again');
    assert.match(await page.locator('table.keys').innerText(), new RegExp(`${key.slice(0, 12)}…`));
  });

  test("today's quota use and the 30-day chart count the accepted request", async () => {
    // Uses are written to the store every 5 s (server.ts): reload until the count shows.
    const deadline = Date.now() + 30_000;
    let row = '';
    while (Date.now() < deadline) {
      await page.goto(`${app}/`);
      row = await page.locator('table.keys tbody tr').first().innerText();
      if (row.includes('1 of 1000000')) break;
      await page.waitForTimeout(1000);
    }
    assert.match(row, /1 of 1000000/);
    assert.match(row, /1 request in the last 30 days/);
    assert.equal(await page.locator('table.keys svg rect.chart-today').count(), 1);
  });

  test('screenshots of the page at desktop and phone width', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: screenshotPath('app-page-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: screenshotPath('app-page-phone.png'), fullPage: true });
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    assert.ok(overflow <= 0, `nothing wider than a phone's screen (${overflow}px too wide)`);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('the CSV download is the file `meals export --for-spreadsheet` writes, whole or for a range of days', async () => {
    const exported = await runCli(['meals', 'export', '--user', userId, '--for-spreadsheet', '--db', server.db]);
    assert.equal(exported.code, 0);
    const [whole] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    assert.equal(readFileSync(await whole.path(), 'utf8'), exported.stdout);

    await page.getByLabel('Meals eaten from').fill('2025-03-01');
    await page.getByLabel('to', { exact: false }).last().fill('2025-03-02');
    const [march] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    assert.match(march.suggestedFilename(), /^meals-.*-2025-03-01-to-2025-03-02\.csv$/);
    const lines = exported.stdout.split('\r\n');
    const expected = [lines[0], ...lines.filter((line) => /,2025-03-0[12]T/.test(line)), ''].join('\r\n');
    assert.equal(readFileSync(await march.path(), 'utf8'), expected);
  });

  test('a forged form post is refused: from another site, and with the session but without the form token', async () => {
    const before = await keyCount();
    // Another origin (another port) whose page posts a form to the app page at once.
    const attacker = http.createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(`<form id="f" method="post" action="${app}/keys"><input name="name" value="forged"></form>
        <script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = attacker.address() as AddressInfo;
      const forged = page.waitForResponse((r) => r.url() === `${app}/keys`);
      await page.goto(`http://127.0.0.1:${port}/`);
      assert.ok([401, 403].includes((await forged).status()), 'the cross-site post is refused');
    } finally {
      attacker.close();
    }

    const cookie = (await context.cookies(app)).map((c) => `${c.name}=${c.value}`).join('; ');
    const withoutToken = await pageRequest(app, {
      path: '/keys',
      headers: { cookie, origin: app },
      form: { name: 'forged' },
    });
    assert.equal(withoutToken.status, 403);
    const wrongToken = await pageRequest(app, {
      path: '/keys',
      headers: { cookie, origin: app },
      form: { name: 'forged', csrf: 'x'.repeat(43) },
    });
    assert.equal(wrongToken.status, 403);
    assert.equal(await keyCount(), before, 'no key was made');
  });

  test('revoking asks for confirmation; then the API answers 401 with that key', async () => {
    await page.goto(`${app}/`);
    await page.getByRole('link', { name: /^Revoke the key “my <script> website”/ }).click();
    await page.getByRole('heading', { name: /Revoke the key/ }).waitFor();
    await page.getByRole('button', { name: 'Revoke this key' }).click();
    assert.match(await page.locator('.notice').innerText(), /The key “my <script> website” was revoked/);
    assert.equal(await page.locator('details.old-keys summary').innerText(), 'Revoked keys (1)');
    // The contract's bound: refused on every instance within 1 s.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const answer = await getMeals(server, key, { lastModifiedSince: '2025-01-01' });
    assert.equal(answer.status, 401);
  });

  test('signing out ends the session, for this browser and for its cookie', async () => {
    const cookie = (await context.cookies(app)).map((c) => `${c.name}=${c.value}`).join('; ');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
    const response = await page.goto(`${app}/`);
    assert.equal(response?.status(), 401);
    assert.equal((await pageRequest(app, { path: '/', headers: { cookie } })).status, 401);
  });

  test('no page broke its Content-Security-Policy, and no key or login token reached the logs', () => {
    assert.deepEqual(
      consoleErrors.filter((text) => /Content Security Policy|Refused to/i.test(text)),
      [],
    );
    const logs = server.logs();
    assert.ok(!logs.includes(key), 'the key is not in the logs');
    assert.ok(
      !logs.includes(new URL(link).searchParams.get('token') ?? 'no token'),
      'the login token is not in the logs',
    );
  });
});
