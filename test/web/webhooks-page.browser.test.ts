import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { cliJson } from '../support/cli.js';
import { newUserId } from '../support/server.js';
import { startTrustedReceiver, type TrustedReceiver } from '../support/trusted-receiver.js';
import { waitFor } from '../support/wait-for.js';
import type { Answer, ReceivedCall } from '../webhooks/receiver.js';
import { useAppPage } from './app-page-fixture.js';
import { browserMissing, screenshotPath, signInAs } from './browser.js';

const missing = browserMissing();
if (missing !== undefined) process.stdout.write(`# skipping the webhooks section's browser tests: ${missing}\n`);

const SECRET_RE = /^whsec_[A-Za-z0-9+/]{43}=$/;

interface TestEvent {
  readonly type: string;
  readonly data: { readonly userId: string };
}

/**
 * The app page's webhooks section in Chromium (docs/webhooks.md#registering-an-endpoint): a real
 * `serve --app-port 0` calling a real HTTPS receiver on 127.0.0.1 (--webhook-allow-private, its
 * certificate given with --webhook-ca). The steps build on each other: add, test, rotate,
 * disable by a 410 and re-enable, delete.
 */
describe("the app page's webhooks section in Chromium", { skip: missing }, () => {
  let receiver: TrustedReceiver;
  let answer: Answer = (response) => response.writeHead(204).end();
  let page: Page;
  let secret = '';
  let rotated = '';
  const userId = newUserId('webhooks');
  const consoleErrors: string[] = [];
  const section = () => page.locator('#webhooks');

  const verified = (key: string, call: ReceivedCall) =>
    new Webhook(key).verify(call.body, {
      'webhook-id': String(call.headers['webhook-id']),
      'webhook-timestamp': String(call.headers['webhook-timestamp']),
      'webhook-signature': String(call.headers['webhook-signature']),
    }) as TestEvent;

  /** Reloads the page until the section's text matches, or fails after `ms`. */
  async function reloadUntil(re: RegExp, ms = 15_000): Promise<string> {
    const deadline = Date.now() + ms;
    let text = '';
    while (Date.now() < deadline) {
      await page.goto(`${appPage.app}/`);
      text = await section().innerText();
      if (re.test(text)) return text;
      await sleep(300);
    }
    assert.fail(`the section never matched ${re}:\n${text}`);
  }

  before(async () => {
    receiver = await startTrustedReceiver((response, call) => answer(response, call));
  });
  const appPage = useAppPage({ serveArgs: () => receiver.serveArgs });
  after(async () => {
    await receiver?.close();
  });

  // One page for every step, its console watched from the sign-in on, its clipboard usable.
  before(async () => {
    page = await appPage.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: appPage.app });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await signInAs(page, appPage.app, appPage.server, userId);
  });

  test('adding an endpoint shows its secret once, with a working Copy button', async () => {
    assert.match(await section().innerText(), /You have no webhook endpoints yet/);
    await page.getByLabel('URL').fill(receiver.url);
    await page.locator('#webhook-name').fill('my <b>server</b>');
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    secret = (await page.locator('#new-webhook-secret').innerText()).trim();
    assert.match(secret, SECRET_RE);
    assert.match(await section().innerText(), /only time it is shown/);
    assert.match(await section().locator('.webhooks').innerText(), /my <b>server<\/b>/, 'the name is shown as text');
    assert.match(await section().locator('.webhooks').innerText(), /enabled/);
    await page.setViewportSize({ width: 1280, height: 900 });
    await section().screenshot({ path: screenshotPath('app-page-webhooks-new.png') });
    await section().getByRole('button', { name: 'Copy' }).click();
    await section().getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);

    await page.goto(`${appPage.app}/`);
    assert.ok(!(await page.content()).includes(secret), 'after the one display, never on the page again');
  });

  test('"Send a test" makes the receiver get a signed webhook.test call, listed after a reload', async () => {
    await section()
      .getByRole('button', { name: /^Send a test/ })
      .click();
    // On its way, or already answered: the page shows the result by itself (webhook-test-result.browser.test.ts).
    assert.match(
      await section().locator('.notice').innerText(),
      /(A test call to “my <b>server<\/b>” is on its way|The test call to “my <b>server<\/b>” was answered)/,
    );
    await waitFor('the test call', () => receiver.calls.length === 1, 5_000);
    const [call] = receiver.calls;
    assert.ok(call !== undefined);
    assert.equal(call.path, '/hook');
    const event = verified(secret, call);
    assert.equal(event.type, 'webhook.test');
    assert.deepEqual(event.data, { userId });
    const text = await reloadUntil(/HTTP 204/);
    assert.match(text, /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC(?:[+-][\d:]+)? · HTTP 204 · \d+ ms/);
  });

  test('rotating the secret shows the new one once; both sign for 24 hours', async () => {
    await section()
      .getByRole('button', { name: /^Rotate the secret/ })
      .click();
    rotated = (await page.locator('#new-webhook-secret').innerText()).trim();
    assert.match(rotated, SECRET_RE);
    assert.notEqual(rotated, secret);
    assert.match(await section().innerText(), /signed with both the old and the new secret/);
    await page.goto(`${appPage.app}/`);
    assert.ok(!(await page.content()).includes(rotated), 'not shown again');

    await section()
      .getByRole('button', { name: /^Send a test/ })
      .click();
    await waitFor('the second test call', () => receiver.calls.length === 2, 5_000);
    const call = receiver.calls[1];
    assert.ok(call !== undefined);
    assert.equal(verified(rotated, call).type, 'webhook.test');
    assert.equal(verified(secret, call).type, 'webhook.test', 'the old secret still signs');
  });

  test('a 410 Gone disables the endpoint; "Re-enable" enables it and the pending call goes out', async () => {
    answer = (response) => response.writeHead(410).end();
    await page.goto(`${appPage.app}/`);
    await section()
      .getByRole('button', { name: /^Send a test/ })
      .click();
    const disabled = await reloadUntil(/disabled/);
    assert.match(disabled, /HTTP 410/);
    await section().screenshot({ path: screenshotPath('app-page-webhooks-disabled.png') });

    answer = (response) => response.writeHead(204).end();
    const before = receiver.calls.length;
    await section()
      .getByRole('button', { name: /^Re-enable/ })
      .click();
    assert.match(await section().locator('.notice').innerText(), /is enabled again/);
    assert.match(await section().locator('.webhooks').innerText(), /enabled/);
    await waitFor('the pending test call, sent again', () => receiver.calls.length > before, 5_000);
    await reloadUntil(/HTTP 204[^]*HTTP 410/);
  });

  test('the section fits a phone screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${appPage.app}/`);
    await section().screenshot({ path: screenshotPath('app-page-webhooks-phone.png') });
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    assert.ok(overflow <= 0, `nothing wider than a phone's screen (${overflow}px too wide)`);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('deleting asks for confirmation, then the endpoint is gone', async () => {
    await section()
      .getByRole('link', { name: /^Delete the endpoint/ })
      .click();
    await page.getByRole('heading', { name: /Delete the webhook endpoint/ }).waitFor();
    await page.getByRole('button', { name: 'Delete this endpoint' }).click();
    assert.match(await section().locator('.notice').innerText(), /The endpoint “my <b>server<\/b>” was deleted\./);
    assert.match(await section().innerText(), /You have no webhook endpoints yet/);
    assert.deepEqual(await cliJson<unknown[]>(['webhooks', 'list', '--user', userId, '--db', appPage.server.db]), []);
  });

  test('no page broke its Content-Security-Policy, and no secret reached the logs', () => {
    assert.deepEqual(
      consoleErrors.filter((text) => /Content Security Policy|Refused to/i.test(text)),
      [],
    );
    for (const key of [secret, rotated]) assert.ok(!appPage.server.logs().includes(key.slice(6)), 'not in the logs');
  });
});
