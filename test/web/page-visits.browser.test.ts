import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { cliJson } from '../support/cli.js';
import { newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { browserMissing, launchChromium, signInAs } from './browser.js';
import { appPageUrl, pageRequest } from './page-client.js';

const missing = browserMissing();

/**
 * The app page as a person reaches and uses it (docs/app.md#the-page-resources--export-api-csv):
 * from a link on the app's own site, with script off, and with the browser's own requests (the
 * icon) answered.
 */
describe('the app page, visited', { skip: missing }, () => {
  let server: ServedApp;
  let app: string;
  let browser: Browser;
  let elsewhere: http.Server;
  let elsewhereUrl: string;

  const signIn = (page: Page, userId: string) => signInAs(page, app, server, userId);

  before(async () => {
    server = await startInProcessServer({ extraArgs: ['--app-port', '0'] });
    app = await appPageUrl(server);
    browser = await launchChromium();
    // Another site: `localhost` is not the page's `127.0.0.1`, so a link from it is cross-site.
    elsewhere = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<!doctype html><title>The diet app</title><a id="export" href="${app}/">Export (API, CSV)</a>`);
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    elsewhereUrl = `http://localhost:${(elsewhere.address() as AddressInfo).port}/`;
  });

  after(async () => {
    await browser?.close();
    elsewhere?.close();
    await server?.stop();
  });

  const newContext = (options: { javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> =>
    browser.newContext({ ignoreHTTPSErrors: true, ...options });

  test('a person who follows a link from the app (another site) arrives signed in', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await signIn(page, newUserId('lax'));
    await page.goto(elsewhereUrl);
    await page.locator('#export').click();
    await page.waitForURL(`${app}/`);
    assert.equal(await page.getByRole('heading', { name: 'You are signed out' }).count(), 0, 'not signed out');
    assert.match(await page.locator('.account').innerText(), /Signed in as/);
    await context.close();
  });

  test('without JavaScript, no Copy button is shown: it would do nothing', async () => {
    const context = await newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await signIn(page, newUserId('nojs'));
    await page.getByRole('button', { name: 'Generate a key' }).click();
    await page.locator('#new-key-value').waitFor();
    const copy = page.locator('button.copy');
    assert.equal(await copy.count(), 1, 'the button is in the page, for script to show');
    assert.equal(await copy.isVisible(), false, 'and out of sight without script');
    await context.close();
  });

  test('at 10 of 10 active keys the page says so instead of offering a form that would fail', async () => {
    const userId = newUserId('full');
    for (let i = 0; i < 10; i += 1) await cliJson(['keys', 'create', '--user', userId, '--db', server.db, '--json']);
    const context = await newContext();
    const page = await context.newPage();
    await signIn(page, userId);
    const section = page.locator('section[aria-labelledby="generate-title"]');
    assert.match(await section.innerText(), /10 of 10 active keys/);
    assert.equal(await section.getByRole('button', { name: 'Generate a key' }).count(), 0);
    await context.close();
  });

  test('an http:// webhook address is refused in the browser, before it is sent', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await signIn(page, newUserId('pattern'));
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url());
    });
    const field = page.getByRole('textbox', { name: /^URL/ });
    await field.fill('http://hooks.example.com/meals');
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    assert.equal(await page.evaluate<boolean>("document.getElementById('webhook-url').validity.patternMismatch"), true);
    assert.deepEqual(posts, [], 'nothing was sent');
    await context.close();
  });

  test('in the system dark mode the page is dark, its text still readable', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, colorScheme: 'dark' });
    const page = await context.newPage();
    await signIn(page, newUserId('dark'));
    const [background, text] = await page.evaluate<[string, string]>(
      '[getComputedStyle(document.documentElement).backgroundColor, getComputedStyle(document.documentElement).color]',
    );
    const channels = (css: string) => (/rgba?\(([^)]+)\)/.exec(css)?.[1] ?? '').split(',').map(Number);
    const [r = 255, g = 255, b = 255] = channels(background);
    assert.ok(r + g + b < 120, `a dark background, got ${background}`);
    const [tr = 0, tg = 0, tb = 0] = channels(text);
    assert.ok(tr + tg + tb > 600, `light text, got ${text}`);
    await context.close();
  });

  test('the page names its icon, and /favicon.ico is there too: no 404 on any page', async () => {
    const context = await newContext();
    const page = await context.newPage();
    const notFound: string[] = [];
    page.on('response', (response) => {
      if (response.status() === 404) notFound.push(response.url());
    });
    await page.goto(`${app}/`);
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    assert.equal(icon, '/static/favicon.svg');
    for (const path of [icon, '/favicon.ico']) {
      const res = await pageRequest(app, { path });
      assert.equal(res.status, 200, path);
      assert.equal(res.headers['content-type'], 'image/svg+xml');
      assert.match(res.text, /^<svg /);
    }
    assert.deepEqual(notFound, []);
    await context.close();
  });
});
