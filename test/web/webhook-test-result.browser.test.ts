import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { cliJson } from '../support/cli.js';
import { makeTempDir } from '../support/project.js';
import { newUserId, startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';
import { makeCertificate, type Receiver, startReceiver } from '../webhooks/receiver.js';
import { browserMissing, launchChromium, signInAs } from './browser.js';
import { focused, outOfView, VIEWPORTS } from './in-view.js';
import { appPageUrl, pageRequest } from './page-client.js';

const missing = browserMissing();

/**
 * "Send a test" (docs/app.md#a-test-calls-result): the call's result appears on the page by
 * itself, from a real `serve` calling a real HTTPS receiver that answers when the test lets it;
 * without script, a link shows it.
 */
describe("a test call's result appears by itself", { skip: missing }, () => {
  let certificateDir: { dir: string; remove: () => void };
  let receiver: Receiver;
  /** The calls waiting for an answer, by path: a test answers its own when the page has shown it waits. */
  const held: { path: string; response: ServerResponse }[] = [];
  let server: TestServer;
  let app: string;
  let browser: Browser;

  before(async () => {
    const certificate = await makeCertificate();
    certificateDir = makeTempDir('webhook-ca');
    const caFile = path.join(certificateDir.dir, 'receiver.pem');
    writeFileSync(caFile, certificate.cert);
    receiver = await startReceiver(certificate, (response, call) => held.push({ path: call.path, response }));
    server = await startTestServer({
      extraArgs: ['--app-port', '0', '--webhook-allow-private', '--webhook-ca', caFile],
    });
    app = await appPageUrl(server);
    browser = await launchChromium();
  });

  after(async () => {
    for (const { response } of held.splice(0)) response.destroy();
    await browser?.close();
    await server?.stop();
    await receiver?.close();
    certificateDir?.remove();
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
    await cliJson(['webhooks', 'create', '--user', userId, '--url', url, '--name', 'my server', '--db', server.db]);
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport, javaScriptEnabled });
    const page = await context.newPage();
    await signInAs(page, app, server.db, userId);
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
    await answer(204);
    const [endpoint] = await cliJson<{ id: string }[]>(['webhooks', 'list', '--user', userId, '--db', server.db]);
    assert.ok(endpoint !== undefined);
    const attempts = () => cliJson<unknown[]>(['webhooks', 'attempts', endpoint.id, '--db', server.db, '--json']);
    await waitFor('the attempt, recorded', async () => (await attempts()).length > 0, 10_000);
    await show.click();
    await page.getByText(/The test call to “my server” was answered: HTTP 204/).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Show its result' }).count(), 0, 'no link once it is there');
    await page.context().close();
  });

  test("the result's fragment is for the signed-in owner only", async () => {
    const userId = newUserId('test');
    const created = await cliJson<{ id: string }>([
      'webhooks',
      'create',
      '--user',
      userId,
      '--url',
      receiver.url,
      '--db',
      server.db,
      '--json',
    ]);
    const signedOut = await pageRequest(app, { path: `/webhooks/${created.id}/calls?event=msg_${'0'.repeat(32)}` });
    assert.equal(signedOut.status, 401);
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await signInAs(page, app, server.db, newUserId('other'));
    const cookie = (await context.cookies(app)).map((c) => `${c.name}=${c.value}`).join('; ');
    const other = await pageRequest(app, {
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
