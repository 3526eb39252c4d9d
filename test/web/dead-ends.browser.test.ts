import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { cliJson, runCli } from '../support/cli.js';
import { newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { browserMissing, launchChromium, signInAs } from './browser.js';
import { appPageUrl } from './page-client.js';
import { sessionRows } from './session-rows.js';

const missing = browserMissing();
const APP_HOME = 'https://diet.example/resources';
const WAY_BACK = 'Go back to the app to get a new link';
const WORDS_BACK = /open the app and choose Resources, then Export \(API, CSV\)/i;

/** A page's links that lead nowhere: no href, or an empty one. */
const deadLinks = (page: Page) =>
  page.evaluate<number>("[...document.querySelectorAll('a')].filter((a) => !a.getAttribute('href')).length");

/**
 * No dead ends (docs/app.md#staying-signed-in): a spent sign-in link, a sign-out and an ended
 * session each say how to get a new link, with a link to the app when `serve` knows its page.
 */
for (const appHome of [APP_HOME, undefined]) {
  describe(
    `the app page's way back, ${appHome === undefined ? 'without' : 'with'} --app-home-url`,
    { skip: missing },
    () => {
      let server: ServedApp;
      let app: string;
      let browser: Browser;

      before(async () => {
        const extraArgs = ['--app-port', '0', ...(appHome === undefined ? [] : ['--app-home-url', appHome])];
        server = await startInProcessServer({ extraArgs });
        app = await appPageUrl(server);
        browser = await launchChromium();
      });

      after(async () => {
        await browser?.close();
        await server?.stop();
      });

      const newPage = async (width: number): Promise<Page> => {
        const page = await browser.newPage({ ignoreHTTPSErrors: true, viewport: { width, height: 800 } });
        // The diet app, as far as this test needs it: a page at its address.
        await page.route(`${APP_HOME}**`, (route) =>
          route.fulfill({
            contentType: 'text/html',
            body: '<!doctype html><title>The diet app</title><h1>Resources</h1>',
          }),
        );
        return page;
      };

      /** What a signed-out page offers: the link to the app, or the words that find it. */
      async function assertWayBack(page: Page, label: string): Promise<void> {
        const link = page.getByRole('link', { name: WAY_BACK });
        const crumb = page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Resources' });
        assert.equal(await deadLinks(page), 0, `${label}: no link leads nowhere`);
        if (appHome === undefined) {
          assert.equal(await link.count(), 0, label);
          assert.equal(await crumb.count(), 0, `${label}: no crumb link to an unknown address`);
          assert.match(await page.locator('main').innerText(), WORDS_BACK, label);
          return;
        }
        assert.equal(await link.getAttribute('href'), appHome, label);
        assert.ok(await link.isVisible(), label);
        assert.equal(await crumb.getAttribute('href'), appHome, label);
      }

      for (const width of [1280, 390]) {
        test(`a used sign-in link says how to get a new one (${width} px)`, async () => {
          const userId = newUserId('spent');
          const page = await newPage(width);
          const { url } = await cliJson<{ url: string }>(['users', 'login-link', '--user', userId, '--db', server.db]);
          await page.goto(url);
          await page.getByRole('button', { name: 'Continue' }).click();
          await page.getByRole('heading', { level: 1, name: 'Export (API, CSV)' }).waitFor();
          await page.goto(url);
          await page.getByRole('button', { name: 'Continue' }).click();
          await page.getByRole('heading', { name: 'This sign-in link cannot be used' }).waitFor();
          await assertWayBack(page, 'spent link');
          const width_ = await page.evaluate<number>('document.documentElement.scrollWidth');
          assert.ok(width_ <= width, `the page is ${width_} px wide at ${width} px`);
          if (appHome !== undefined) {
            await page.getByRole('link', { name: WAY_BACK }).click();
            await page.waitForURL(appHome);
            assert.equal(await page.title(), 'The diet app');
          }
          await page.close();
        });
      }

      test('signing out, and an ended session, say how to get a new link', async () => {
        const userId = newUserId('ended');
        const page = await newPage(1280);
        await signInAs(page, app, server, userId);
        if (appHome !== undefined) {
          const crumb = page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Resources' });
          assert.equal(await crumb.getAttribute('href'), appHome, 'the crumb leads back to the app, signed in too');
        }
        sessionRows(server.db).set(userId, { expiresAt: Date.now() - 1000 });
        await page.reload();
        await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
        assert.match(await page.locator('main').innerText(), /Your session has ended/);
        await assertWayBack(page, 'ended session');

        await signInAs(page, app, server, userId);
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
        await assertWayBack(page, 'signed out');
        await page.close();
      });
    },
  );
}

describe('serve --app-home-url', () => {
  test('is refused at start unless an https:// address, from the flag or the environment', async () => {
    for (const [args, env] of [
      [['--app-home-url', 'http://diet.example/'], {}],
      [['--app-home-url', 'https://user:secret@diet.example/'], {}],
      [[], { MEAL_EXPORT_APP_HOME_URL: 'diet.example' }],
    ] as const) {
      const run = await runCli(['serve', '--port', '0', '--app-port', '0', ...args], { env });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /--app-home-url must be an https:\/\/ address/);
      assert.doesNotMatch(run.stderr, /secret/, 'a password is not echoed');
    }
  });
});
