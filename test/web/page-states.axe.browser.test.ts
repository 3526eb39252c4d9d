import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { cliJson } from '../support/cli.js';
import { newUserId } from '../support/server.js';
import { useAppPage } from './app-page-fixture.js';
import { expectNoAxeViolations, expectNoAxeViolationsEverywhere } from './axe.js';
import { browserMissing } from './browser.js';

const missing = browserMissing();
if (missing !== undefined) process.stdout.write(`# skipping the app page's axe checks: ${missing}\n`);

/**
 * Every state of the app page's sign-in, keys and CSV parts passes axe-core (WCAG 2.0 and 2.1 A
 * and AA, and best practices), at desktop and phone width, light and dark (axe.ts). Each state is
 * reached as a person reaches it, and named by what the person sees before axe runs. The
 * webhooks section's states are in webhook-states.axe.browser.test.ts.
 */
describe('the app page passes axe: sign-in, keys, CSV', { skip: missing }, () => {
  const appPage = useAppPage();
  const newPage = () => appPage.newPage();
  const signedIn = (userId = newUserId('axe')): Promise<Page> => appPage.signedIn(userId);
  const loginLink = async (userId: string) =>
    (
      await cliJson<{ url: string }>([
        'users',
        'login-link',
        '--user',
        userId,
        '--db',
        appPage.server.db,
        '--public-url',
        appPage.app,
      ])
    ).url;
  const createKey = (userId: string, name: string) =>
    cliJson<{ id: string }>(['keys', 'create', '--user', userId, '--name', name, '--db', appPage.server.db]);

  test('the check itself fails, naming the rule and the element, on a page with a violation', async () => {
    const page = await signedIn();
    await page.evaluate('document.querySelector(\'label[for="key-expiry"]\').remove()');
    await assert.rejects(expectNoAxeViolations(page, 'a list without its label'), (error: Error) => {
      assert.match(error.message, /violation select-name \(critical\)[^]*#key-expiry/);
      return true;
    });
  });

  test('signed out: the page opened without a session, and after Sign out', async () => {
    const page = await newPage();
    const response = await page.goto(`${appPage.app}/`);
    assert.equal(response?.status(), 401);
    await page.getByRole('heading', { level: 1, name: 'You are signed out' }).waitFor();
    await expectNoAxeViolationsEverywhere(page, 'signed out, no session');

    const other = await signedIn();
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.getByRole('heading', { level: 1, name: 'You are signed out' }).waitFor();
    await expectNoAxeViolationsEverywhere(other, 'after Sign out');
  });

  test("a sign-in link's page, with its Continue button", async () => {
    const page = await newPage();
    await page.goto(await loginLink(newUserId('axe')));
    await page.getByRole('button', { name: 'Continue' }).waitFor();
    await expectNoAxeViolationsEverywhere(page, 'sign-in link');
  });

  test('a sign-in link used already, and one without its token', async () => {
    const link = await loginLink(newUserId('axe'));
    const first = await newPage();
    await first.goto(link);
    await first.getByRole('button', { name: 'Continue' }).click();
    await first.getByRole('heading', { level: 1, name: 'Export (API, CSV)' }).waitFor();

    const page = await newPage();
    await page.goto(link);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { level: 1, name: 'This sign-in link cannot be used' }).waitFor();
    await expectNoAxeViolationsEverywhere(page, 'used sign-in link');

    await page.goto(`${appPage.app}/login`);
    await page.getByRole('heading', { level: 1, name: 'This sign-in link is incomplete' }).waitFor();
    await expectNoAxeViolationsEverywhere(page, 'sign-in link without its token');
  });

  test('signed in with no keys and no endpoints', async () => {
    const page = await signedIn();
    await page.getByText('You have no API keys yet.').waitFor();
    await page.getByText('You have no webhook endpoints yet.').waitFor();
    await expectNoAxeViolationsEverywhere(page, 'no keys');
  });

  test('keys listed, active and revoked; the revoke confirmation; the revoked notice', async () => {
    const userId = newUserId('axe');
    await createKey(userId, 'back office');
    const revoked = await createKey(userId, 'old laptop');
    await cliJson(['keys', 'revoke', revoked.id, '--db', appPage.server.db]);
    const page = await signedIn(userId);
    assert.equal(await page.locator('table.keys > tbody > tr').count(), 1, 'one active key row');
    // The revoked one is folded: checked closed, then open.
    await expectNoAxeViolationsEverywhere(page, 'keys, active and revoked (folded)');
    await page.locator('details.old-keys summary').click();
    await page.locator('details.old-keys li').filter({ hasText: 'old laptop' }).waitFor();
    await expectNoAxeViolationsEverywhere(page, 'keys, active and revoked (unfolded)');

    await page.getByRole('link', { name: /^Revoke the key “back office”/ }).click();
    await page.getByRole('heading', { level: 1, name: /^Revoke the key “back office”/ }).waitFor();
    await expectNoAxeViolationsEverywhere(page, 'revoke confirmation');

    await page.getByRole('button', { name: 'Revoke this key' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /was revoked/ })
      .waitFor();
    await expectNoAxeViolationsEverywhere(page, 'a key just revoked (its notice)');
  });

  test('a new key, shown once', async () => {
    const page = await signedIn();
    await page.getByLabel('Name').fill('my website');
    await page.getByRole('button', { name: 'Generate a key' }).click();
    await page.getByRole('heading', { level: 2, name: 'Your new key “my website”' }).waitFor();
    await expectNoAxeViolationsEverywhere(page, 'new key shown once');
  });

  test('10 of 10 keys: the form sent from a page that had 9, refused, and the page without the form', async () => {
    const userId = newUserId('axe');
    for (let i = 1; i <= 9; i += 1) await createKey(userId, `key ${i}`);
    const page = await signedIn(userId);
    await createKey(userId, 'key 10');
    await page.getByRole('button', { name: 'Generate a key' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /You already have 10 active keys/ })
      .waitFor();
    assert.match(await page.locator('section[aria-labelledby="generate-title"]').innerText(), /10 of 10 active keys/);
    await expectNoAxeViolationsEverywhere(page, '10 of 10 keys, refused');
  });

  test('a CSV range whose first day is after its last, said beside the days as they are typed', async () => {
    const page = await signedIn();
    await page.getByLabel('Meals eaten from').fill('2025-03-02');
    await page.locator('#csv-to').fill('2025-03-01');
    await page.getByText('The first day is after the last').waitFor();
    assert.equal(await page.locator('#csv-to').getAttribute('aria-invalid'), 'true');
    await expectNoAxeViolationsEverywhere(page, 'bad CSV range, said by the script');
  });
});
