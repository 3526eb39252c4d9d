import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cliJson } from '../support/cli.js';
import { newUserId } from '../support/server.js';
import { useAppPage } from './app-page-fixture.js';
import { browserMissing } from './browser.js';
import { focused, outOfView, VIEWPORTS } from './in-view.js';

const missing = browserMissing();

/**
 * What a form did opens where the person is looking (docs/app.md#what-a-form-did): the key or
 * secret shown once, or the refusal, is in the window and has the focus, at desktop and phone
 * width, and a refusal about one field is said next to it.
 */
describe("a form's result opens in view, with the focus", { skip: missing }, () => {
  const appPage = useAppPage();

  const signedIn = (viewport: { width: number; height: number }, userId: string, javaScriptEnabled = true) =>
    appPage.signedIn(userId, { viewport, javaScriptEnabled });
  const cli = (args: string[]) => cliJson([...args, '--db', appPage.server.db, '--json']);
  const addWebhook = (userId: string, url: string) => cli(['webhooks', 'create', '--user', userId, '--url', url]);

  for (const viewport of VIEWPORTS) {
    test(`a new key is in view and has the focus (${viewport.name})`, async () => {
      const page = await signedIn(viewport, newUserId('view'));
      await page.getByLabel('Name').fill('site');
      await page.getByRole('button', { name: 'Generate a key' }).click();
      const key = page.locator('#new-key-value');
      await key.waitFor();
      assert.equal(await outOfView(key), 0, 'the key lies whole in the window');
      assert.ok((await focused(page)).text.includes(await key.innerText()), "the focus is on the key's box");
      // Drawn with the page's own ring (3:1 at least on its paper), not the browser's default.
      const outline = await page.evaluate<{ color: string; style: string; ring: string }>(`(() => {
        const style = getComputedStyle(document.activeElement);
        const probe = document.createElement('span');
        probe.style.color = 'var(--ring)';
        document.body.append(probe);
        const ring = getComputedStyle(probe).color;
        probe.remove();
        return { color: style.outlineColor, style: style.outlineStyle, ring };
      })()`);
      assert.deepEqual([outline.style, outline.color], ['solid', outline.ring], 'the focused box has the page ring');
      await page.context().close();
    });

    test(`a new webhook secret, and a rotated one, are in view with the focus (${viewport.name})`, async () => {
      const page = await signedIn(viewport, newUserId('view'));
      await page.getByLabel('URL').fill('https://example.com/hook');
      await page.getByRole('button', { name: 'Add the endpoint' }).click();
      const secret = page.locator('#new-webhook-secret');
      for (const step of ['added', 'rotated']) {
        await secret.waitFor();
        assert.equal(await outOfView(secret), 0, `the ${step} secret lies whole in the window`);
        const box = await focused(page);
        assert.ok(box.text.includes(await secret.innerText()), `the focus is on the secret's box (${step})`);
        if (step === 'added') {
          await page.getByRole('button', { name: /^Rotate the secret/ }).click();
          // The added secret's box is in the page until the next one loads: wait for that one.
          await page.getByRole('heading', { name: /^The new secret of/ }).waitFor();
        }
      }
      await page.context().close();
    });

    test(`a refused webhook URL is said next to its field, which has the focus (${viewport.name})`, async () => {
      const page = await signedIn(viewport, newUserId('view'));
      await page.getByLabel('URL').fill('https://me:pw@example.com/hook');
      await page.getByRole('button', { name: 'Add the endpoint' }).click();
      const field = page.locator('#webhook-url');
      await page.locator('#webhook-url[aria-invalid="true"]').waitFor();
      const now = await focused(page);
      assert.equal(now.id, 'webhook-url', 'the field has the focus');
      assert.match(now.describedBy, /must not contain a user name or password\. No endpoint was added\./);
      assert.equal(await field.inputValue(), 'https://me:pw@example.com/hook', 'the address is kept to correct');
      assert.equal(await outOfView(field), 0);
      const message = page.locator('.field-error', { hasText: 'user name or password' });
      assert.equal(await outOfView(message), 0, 'the message is in view beside it');
      await page.context().close();
    });

    test(`a 6th endpoint's refusal is in view with the focus (${viewport.name})`, async () => {
      const userId = newUserId('view');
      for (let i = 1; i <= 4; i += 1) await addWebhook(userId, `https://example.com/${i}`);
      const page = await signedIn(viewport, userId);
      await addWebhook(userId, 'https://example.com/5'); // from elsewhere, while the page is open
      await page.getByLabel('URL').fill('https://example.com/6');
      await page.getByRole('button', { name: 'Add the endpoint' }).click();
      const refusal = page.getByText('You already have 5 webhook endpoints');
      await refusal.waitFor();
      assert.equal(await outOfView(refusal), 0);
      assert.match((await focused(page)).text, /You already have 5 webhook endpoints/);
      await page.context().close();
    });

    test(`a refused key name is said next to its field; a refused key, in view (${viewport.name})`, async () => {
      const userId = newUserId('view');
      for (let i = 0; i < 9; i += 1) await cli(['keys', 'create', '--user', userId]);
      const page = await signedIn(viewport, userId);
      await page.getByLabel('Name').fill('bell\u0007');
      await page.getByRole('button', { name: 'Generate a key' }).click();
      await page.locator('#key-name[aria-invalid="true"]').waitFor();
      const name = await focused(page);
      assert.equal(name.id, 'key-name', 'the field has the focus');
      assert.match(name.describedBy, /at most 100 characters of text\. No key was made\./);
      assert.equal(await outOfView(page.locator('#key-name')), 0);

      await cli(['keys', 'create', '--user', userId]); // the 10th, from elsewhere
      await page.getByLabel('Name').fill('eleventh');
      await page.getByRole('button', { name: 'Generate a key' }).click();
      const refusal = page.getByText('You already have 10 active keys');
      await refusal.waitFor();
      assert.equal(await outOfView(refusal), 0);
      assert.match((await focused(page)).text, /You already have 10 active keys/);
      await page.context().close();
    });
  }

  test('without script the new key and a refused field are in view with the focus too (phone)', async () => {
    const page = await signedIn(VIEWPORTS[1], newUserId('nojs'), false);
    await page.getByRole('button', { name: 'Generate a key' }).click();
    const key = page.locator('#new-key-value');
    await key.waitFor();
    assert.equal(await outOfView(key), 0);
    assert.match((await focused(page)).text, /mxk_/);

    await page.getByLabel('URL').fill('https://me:pw@example.com/hook');
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    await page.locator('#webhook-url[aria-invalid="true"]').waitFor();
    assert.equal((await focused(page)).id, 'webhook-url');
    assert.equal(await outOfView(page.locator('#webhook-url')), 0);
    await page.context().close();
  });
});
