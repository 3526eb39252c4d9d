import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { cliJson, createWebhookByCli } from '../support/cli.js';
import { newUserId } from '../support/server.js';
import { startTrustedReceiver, type TrustedReceiver } from '../support/trusted-receiver.js';
import { waitFor } from '../support/wait-for.js';
import { expectNoAxeViolationsEverywhere } from './axe.js';
import { useAppPage } from './app-page-fixture.js';
import { browserMissing } from './browser.js';

const missing = browserMissing();
if (missing !== undefined) process.stdout.write(`# skipping the webhooks section's axe checks: ${missing}\n`);

interface ListedWebhook {
  readonly id: string;
  readonly status: string;
}

/**
 * Every state of the app page's webhooks section passes axe-core, as page-states.axe.browser.test.ts
 * checks the rest: endpoints enabled and disabled with their last calls, a secret shown once
 * (added, rotated), the delete confirmation, and each refusal. A real receiver on 127.0.0.1
 * answers 204, or 410 Gone at /gone (which disables its endpoint).
 */
describe('the app page passes axe: webhooks', { skip: missing }, () => {
  let receiver: TrustedReceiver;

  before(async () => {
    receiver = await startTrustedReceiver((response, call) =>
      response.writeHead(call.path === '/gone' ? 410 : 204).end(),
    );
  });
  const appPage = useAppPage({ serveArgs: () => receiver.serveArgs });
  after(async () => {
    await receiver?.close();
  });

  const signedIn = (userId: string): Promise<Page> => appPage.signedIn(userId);
  const createWebhook = (userId: string, url: string, name: string) =>
    createWebhookByCli<ListedWebhook>(appPage.server.db, userId, url, name);
  const listWebhooks = (userId: string) =>
    cliJson<ListedWebhook[]>(['webhooks', 'list', '--user', userId, '--db', appPage.server.db]);
  const section = (page: Page) => page.locator('#webhooks');

  test('endpoints listed, one enabled with a call, one disabled by a 410; the delete confirmation', async () => {
    const userId = newUserId('axe');
    const live = await createWebhook(userId, receiver.url, 'reports server');
    const gone = await createWebhook(userId, receiver.url.replace('/hook', '/gone'), 'old server');
    for (const endpoint of [live, gone]) await cliJson(['webhooks', 'test', endpoint.id, '--db', appPage.server.db]);
    await waitFor(
      'the 410 to disable its endpoint',
      async () => (await listWebhooks(userId)).some((endpoint) => endpoint.status === 'disabled'),
      10_000,
    );
    const page = await signedIn(userId);
    assert.deepEqual([...(await section(page).locator('.status').allInnerTexts())].sort(), ['disabled', 'enabled']);
    await section(page)
      .getByRole('button', { name: /^Re-enable/ })
      .waitFor();
    await expectNoAxeViolationsEverywhere(page, 'endpoints, enabled and disabled');

    await section(page)
      .getByRole('link', { name: /^Delete the endpoint old server/ })
      .click();
    await page.getByRole('heading', { level: 1, name: /^Delete the webhook endpoint/ }).waitFor();
    await expectNoAxeViolationsEverywhere(page, 'delete confirmation');
  });

  test('a new endpoint, its secret shown once; then rotated, the new secret shown once', async () => {
    const page = await signedIn(newUserId('axe'));
    await page.getByRole('textbox', { name: /^URL/ }).fill(receiver.url);
    await page.getByLabel(/^Label/).fill('reports server');
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    await section(page).getByRole('heading', { name: 'The secret of your new endpoint “reports server”' }).waitFor();
    await expectNoAxeViolationsEverywhere(page, 'new endpoint secret shown once');

    await page.goto(`${appPage.app}/`);
    await section(page)
      .getByRole('button', { name: /^Rotate the secret/ })
      .click();
    await section(page).getByRole('heading', { name: 'The new secret of “reports server”' }).waitFor();
    await expectNoAxeViolationsEverywhere(page, 'rotated secret shown once');
  });

  test('an http:// address: refused in the browser, and by the server when the browser does not check', async () => {
    const page = await signedIn(newUserId('axe'));
    await page.getByRole('textbox', { name: /^URL/ }).fill('http://hooks.example.com/meals');
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    assert.equal(await page.evaluate<boolean>("document.getElementById('webhook-url').matches(':invalid')"), true);
    await expectNoAxeViolationsEverywhere(page, 'http:// address, refused in the browser');

    // An older browser, or one with the check off, sends it: the server's refusal, the form kept.
    await page.evaluate('document.querySelector(\'form[action="/webhooks"]\').noValidate = true');
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    await section(page)
      .locator('.field-error')
      .filter({ hasText: /must start with https:\/\// })
      .waitFor();
    assert.equal(await page.getByRole('textbox', { name: /^URL/ }).getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByRole('textbox', { name: /^URL/ }).inputValue(), 'http://hooks.example.com/meals');
    await expectNoAxeViolationsEverywhere(page, 'http:// address, refused by the server');
  });

  test('a 6th endpoint: the form sent from a page that had 4, refused, and the page without the form', async () => {
    const userId = newUserId('axe');
    for (let i = 1; i <= 4; i += 1) await createWebhook(userId, `${receiver.url}/${i}`, `server ${i}`);
    const page = await signedIn(userId);
    await createWebhook(userId, `${receiver.url}/5`, 'server 5');
    await page.getByRole('textbox', { name: /^URL/ }).fill(`${receiver.url}/6`);
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    await section(page)
      .getByRole('alert')
      .filter({ hasText: /You already have 5 webhook endpoints/ })
      .waitFor();
    assert.match(await section(page).innerText(), /You have 5 endpoints, the most allowed/);
    await expectNoAxeViolationsEverywhere(page, '6th endpoint, refused');
  });
});
