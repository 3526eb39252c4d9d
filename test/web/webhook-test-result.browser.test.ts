import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { cliJson, createWebhookByCli } from '../support/cli.js';
import { newUserId } from '../support/server.js';
import { startTrustedReceiver, type TrustedReceiver } from '../support/trusted-receiver.js';
import { waitFor } from '../support/wait-for.js';
import { useAppPage } from './app-page-fixture.js';
import { expectNoAxeViolationsEverywhere, openWithoutScript } from './axe.js';
import { browserMissing, signInAs } from './browser.js';
import { focused, outOfView, VIEWPORTS } from './in-view.js';
import { pageRequest } from './page-client.js';

const missing = browserMissing();

/**
 * "Send a test" (docs/app.md#a-test-calls-result): the call's result appears on the page by
 * itself, from a real `serve` calling a real HTTPS receiver that answers when the test lets it;
 * without script, a link shows it.
 */
describe("a test call's result appears by itself", { skip: missing }, () => {
  let receiver: TrustedReceiver;
  /** The calls waiting for an answer, by path: a test answers its own when the page has shown it waits. */
  const held: { path: string; response: ServerResponse }[] = [];

  before(async () => {
    receiver = await startTrustedReceiver((response, call) => held.push({ path: call.path, response }));
  });
  // Registered before the app page's own after hook, so this runs first: no call is left waiting.
  after(() => {
    for (const { response } of held.splice(0)) response.destroy();
  });
  const appPage = useAppPage({ serveArgs: () => receiver.serveArgs });
  after(async () => {
    await receiver?.close();
  });

  /**
   * A user with one endpoint at the receiver (a path of its own), signed in; the page's loads of a
   * document are counted.
   */
  async function withEndpoint(
    viewport: { width: number; height: number },
    javaScriptEnabled = true,
  ): Promise<{ page: Page; loads: string[]; userId: string; answer: (status: number) => Promise<void> }> {
    const userId = newUserId('test');
    const url = `${receiver.url}?user=${userId}`;
    await createWebhookByCli(appPage.server.db, userId, url, 'my server');
    const page = await appPage.signedIn(userId, { viewport, javaScriptEnabled });
    const loads: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) loads.push(frame.url());
    });
    const answer = async (status: number) => {
      const mine = () => held.findIndex((call) => call.path.endsWith(`?user=${userId}`));
      await waitFor('the test call', () => mine() >= 0, 10_000);
      held.splice(mine(), 1)[0]?.response.writeHead(status).end();
    };
    return { page, loads, userId, answer };
  }
  const notice = (page: Page) => page.locator('#webhooks .notice');

  for (const viewport of VIEWPORTS) {
    test(`with script, the answer shows without a reload, in view (${viewport.name})`, async () => {
      const { page, loads, answer } = await withEndpoint(viewport);
      await page.getByRole('button', { name: /^Send a test/ }).click();
      await page.getByText('A test call to “my server” is on its way').waitFor();
      assert.equal(await outOfView(notice(page)), 0);
      assert.match((await focused(page)).text, /A test call to “my server” is on its way/, 'it has the focus');
      const pages = loads.length;

      await answer(204);
      await page.getByText(/The test call to “my server” was answered: HTTP 204 · \d+ ms/).waitFor({ timeout: 15_000 });
      assert.match(await page.locator('#webhooks .webhooks').innerText(), /UTC · HTTP 204 · \d+ ms/, 'listed too');
      assert.equal(loads.length, pages, 'the page was not loaded again');
      assert.equal(await notice(page).getAttribute('role'), 'status', 'the same live region, its words changed');
      await page.context().close();
    });
  }

  test('without script, a link shows the result once it is there', async () => {
    const { page, userId, answer } = await withEndpoint(VIEWPORTS[1], false);
    await page.getByRole('button', { name: /^Send a test/ }).click();
    const show = page.getByRole('link', { name: 'Show its result' });
    await show.waitFor();
    const checker = await appPage.newPage();
    await openWithoutScript(page, checker);
    assert.ok(await checker.getByRole('link', { name: 'Show its result' }).isVisible(), 'axe sees the link');
    // Answered before the axe runs, which a loaded machine may stretch past the sender's 10 s.
    await answer(204);
    await expectNoAxeViolationsEverywhere(checker, 'a test call on its way, its link, without script');
    const [endpoint] = await cliJson<{ id: string }[]>([
      'webhooks',
      'list',
      '--user',
      userId,
      '--db',
      appPage.server.db,
    ]);
    assert.ok(endpoint !== undefined);
    const attempts = () =>
      cliJson<unknown[]>(['webhooks', 'attempts', endpoint.id, '--db', appPage.server.db, '--json']);
    await waitFor('the attempt, recorded', async () => (await attempts()).length > 0, 10_000);
    await show.click();
    await page.getByText(/The test call to “my server” was answered: HTTP 204/).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Show its result' }).count(), 0, 'no link once it is there');
    await page.context().close();
  });

  test("the result's fragment is for the signed-in owner only", async () => {
    const userId = newUserId('test');
    const created = await createWebhookByCli<{ id: string }>(appPage.server.db, userId, receiver.url);
    const signedOut = await pageRequest(appPage.app, {
      path: `/webhooks/${created.id}/calls?event=msg_${'0'.repeat(32)}`,
    });
    assert.equal(signedOut.status, 401);
    const context = await appPage.browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await signInAs(page, appPage.app, appPage.server, newUserId('other'));
    const cookie = (await context.cookies(appPage.app)).map((c) => `${c.name}=${c.value}`).join('; ');
    const other = await pageRequest(appPage.app, {
      path: `/webhooks/${created.id}/calls?event=msg_${'0'.repeat(32)}`,
      headers: { cookie },
    });
    assert.equal(other.status, 404);
    assert.doesNotMatch(other.text, /127\.0\.0\.1/);
    await context.close();
  });

  test('a failed test call shows as failed, by itself', async () => {
    const { page, answer } = await withEndpoint(VIEWPORTS[0]);
    await page.getByRole('button', { name: /^Send a test/ }).click();
    await page.getByText('is on its way').waitFor();
    await answer(500);
    await page.getByText(/The test call to “my server” failed: HTTP 500 · \d+ ms/).waitFor({ timeout: 15_000 });
    await page.context().close();
  });
});
