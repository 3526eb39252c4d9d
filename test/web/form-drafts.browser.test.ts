import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { cliJson } from '../support/cli.js';
import { newUserId } from '../support/server.js';
import { useAppPage } from './app-page-fixture.js';
import { browserMissing, signInAs } from './browser.js';
import { sessionRows } from './session-rows.js';

const missing = browserMissing();

/** What a person typed in each form of the page. */
const TYPED = {
  keyName: 'nightly backup',
  expiry: '30d',
  webhookUrl: 'https://hooks.example.com/meals',
  webhookLabel: 'backup server',
  from: '2025-03-01',
  to: '2025-03-31',
} as const;

/**
 * A form filled while the session ended (docs/app.md#staying-signed-in): sent, it meets the
 * signed-out page; once signed in again in the same tab, what was typed is back in the forms.
 */
describe('the app page keeps what was typed across the end of a session', { skip: missing }, () => {
  const appPage = useAppPage();
  let rows: ReturnType<typeof sessionRows>;

  before(() => {
    rows = sessionRows(appPage.server.db);
  });

  async function fillEveryForm(page: Page): Promise<void> {
    await page.getByLabel('Name').fill(TYPED.keyName);
    await page.getByLabel('Expires').selectOption(TYPED.expiry);
    await page.getByLabel(/^URL/).fill(TYPED.webhookUrl);
    await page.getByLabel(/^Label/).fill(TYPED.webhookLabel);
    await page.getByLabel('Meals eaten from').fill(TYPED.from);
    await page.getByLabel(/^to/).fill(TYPED.to);
  }

  const formValues = async (page: Page) => ({
    keyName: await page.getByLabel('Name').inputValue(),
    expiry: await page.getByLabel('Expires').inputValue(),
    webhookUrl: await page.getByLabel(/^URL/).inputValue(),
    webhookLabel: await page.getByLabel(/^Label/).inputValue(),
    from: await page.getByLabel('Meals eaten from').inputValue(),
    to: await page.getByLabel(/^to/).inputValue(),
  });

  for (const [button, width] of [
    ['Generate a key', 1280],
    ['Add the endpoint', 390],
    ['Download CSV', 1280],
  ] as const) {
    test(`sent with "${button}" after the session ended, every form's text is back after signing in (${width} px)`, async () => {
      const userId = newUserId('draft');
      const page = await appPage.signedIn(userId, { viewport: { width, height: 844 } });
      await fillEveryForm(page);
      rows.set(userId, { expiresAt: Date.now() - 1000 });
      await page.getByRole('button', { name: button }).click();
      await page.getByRole('heading', { name: 'You are signed out' }).waitFor();

      // Only what was typed is kept: never a form's hidden token or one-time id.
      const kept = await page.evaluate<string>('JSON.stringify(Object.entries(sessionStorage))');
      assert.ok(kept.includes(TYPED.keyName), kept);
      assert.doesNotMatch(kept, /csrf|keyId|key_|whk_/, kept);

      await signInAs(page, appPage.app, appPage.server, userId);
      // The page's script puts the text back once it runs, and says so.
      await page.getByRole('status').filter({ hasText: 'What you had typed is back' }).first().waitFor();
      assert.deepEqual(await formValues(page), TYPED);
      assert.deepEqual(await cliJson<unknown[]>(['keys', 'list', '--user', userId, '--db', appPage.server.db]), []);
      await page.close();
    });
  }

  test('a form that went through leaves nothing behind: the next page and a reload start empty', async () => {
    const userId = newUserId('sent');
    const page = await appPage.signedIn(userId);
    await page.getByLabel('Name').fill('made at once');
    await page.getByRole('button', { name: 'Generate a key' }).click();
    await page.getByRole('heading', { name: /Your new key/ }).waitFor();
    // Once loaded, the page's scripts have run: nothing was put back.
    await page.waitForLoadState('load');
    assert.equal(await page.getByLabel('Name').inputValue(), '');
    await page.goto(`${appPage.app}/`);
    assert.equal(await page.getByLabel('Name').inputValue(), '');
    assert.equal(await page.getByText('What you had typed is back').count(), 0);
    await page.close();
  });
});
