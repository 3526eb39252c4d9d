import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { cliJson } from '../support/cli.js';
import { newUserId } from '../support/server.js';
import { useAppPage } from './app-page-fixture.js';
import { browserMissing, signInAs } from './browser.js';

const missing = browserMissing();

/**
 * A form's result is a page of its own (post/redirect/get, docs/app.md#what-a-form-did): Back
 * and reload never send the form again nor ask to, and a key or secret is shown once, never in
 * an address.
 */
describe("a form's result, once: Back and reload", { skip: missing }, () => {
  const appPage = useAppPage();

  /** A signed-in page that records every address it asks for. */
  async function signedIn(userId: string): Promise<{ page: Page; addresses: string[] }> {
    const page = await appPage.newPage({ viewport: { width: 1280, height: 800 } });
    const addresses: string[] = [];
    page.on('request', (request) => addresses.push(request.url()));
    page.on('response', (response) => addresses.push(response.headers()['location'] ?? ''));
    await signInAs(page, appPage.app, appPage.server, userId);
    return { page, addresses };
  }
  const count = async (what: 'keys' | 'webhooks', userId: string) =>
    (await cliJson<unknown[]>([what, 'list', '--user', userId, '--db', appPage.server.db, '--json'])).length;

  /** Back lands on a page (never on "Confirm form resubmission"), as a GET. */
  async function back(page: Page): Promise<void> {
    const response = await page.goBack();
    assert.equal(response?.request().method(), 'GET', 'Back asks for a page, sending no form');
    assert.equal(response?.status(), 200);
    await page.getByRole('heading', { level: 1, name: 'Export (API, CSV)' }).waitFor();
  }

  test('a new key: a reload shows it no more and makes none; Back from the next page sends nothing', async () => {
    const userId = newUserId('once');
    const { page, addresses } = await signedIn(userId);
    await page.getByLabel('Name').fill('site');
    await page.getByRole('button', { name: 'Generate a key' }).click();
    const key = (await page.locator('#new-key-value').innerText()).trim();
    assert.match(key, /^mxk_/);

    await page.reload();
    assert.equal(await page.locator('#new-key-value').count(), 0, 'not shown again');
    assert.ok(!(await page.content()).includes(key));
    assert.doesNotMatch(await page.locator('main').innerText(), /sent already/, 'the form was not sent again');

    await page.getByRole('link', { name: /^Revoke the key/ }).click();
    await page.getByRole('heading', { name: /Revoke the key/ }).waitFor();
    await back(page);
    assert.ok(!(await page.content()).includes(key));
    assert.equal(await count('keys', userId), 1, 'one key was made');
    assert.deepEqual(
      addresses.filter((address) => address.includes(key.slice(4))),
      [],
      'the key was in no address',
    );
    await page.context().close();
  });

  test('a webhook secret, added then rotated: shown once each, never again on reload or Back', async () => {
    const userId = newUserId('once');
    const { page, addresses } = await signedIn(userId);
    await page.getByLabel('URL').fill('https://example.com/hook');
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    const added = (await page.locator('#new-webhook-secret').innerText()).trim();
    await page.getByRole('button', { name: /^Rotate the secret/ }).click();
    const rotated = (await page.locator('#new-webhook-secret').innerText()).trim();
    assert.notEqual(rotated, added);

    await page.reload();
    assert.equal(await page.locator('#new-webhook-secret').count(), 0, 'not shown again');
    assert.doesNotMatch(await page.locator('#webhooks').innerText(), /it was not rotated again/, 'nor sent again');
    await page.getByRole('link', { name: /^Delete the endpoint/ }).click();
    await page.getByRole('heading', { name: /Delete the webhook endpoint/ }).waitFor();
    await back(page);
    await back(page);
    const text = await page.content();
    assert.ok(!text.includes(added) && !text.includes(rotated));
    assert.equal(await count('webhooks', userId), 1, 'one endpoint');
    for (const secret of [added, rotated]) {
      assert.deepEqual(
        addresses.filter((address) => address.includes(secret.slice(6, 30))),
        [],
      );
    }
    await page.context().close();
  });

  test('a refusal: Back and Forward are pages, and a reload keeps no stale message', async () => {
    const userId = newUserId('once');
    const { page } = await signedIn(userId);
    await page.getByLabel('URL').fill('https://me:pw@example.com/hook');
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    const message = page.getByText('must not contain a user name or password');
    await message.waitFor();
    await back(page);
    const forward = await page.goForward();
    assert.equal(forward?.request().method(), 'GET');
    assert.equal(forward?.status(), 200);
    await page.reload();
    assert.equal(await message.count(), 0, 'said once, on the page the form opened');
    assert.equal(await count('webhooks', userId), 0);
    await page.context().close();
  });
});
