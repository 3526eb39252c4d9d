import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { ApiKeyRecord } from '../../src/domain/key-records.js';
import { newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { browserMissing, launchChromium, screenshotPath, signInAs } from './browser.js';
import { appPageUrl } from './page-client.js';
import { seedKeys } from './seeded-keys.js';

const missing = browserMissing();

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const HOUR_MS = 3_600_000;
/**
 * How far down a phone page (CSS px) the sections after the keys may start for someone with 3
 * active and 8 revoked keys: about three screens. The page that listed every key as a full card
 * put "Generate a key" alone 4,800 px down, below the eleven cards.
 */
const PHONE_BOUND_PX = 2600;

/**
 * The keys list of the app page (docs/app.md#your-keys) as a user's history grows: "Generate
 * a key" first, revoked and expired keys folded away, an active key a compact row on a phone,
 * so the page does not grow with every key ever revoked.
 */
describe('the keys list with a history of revoked keys, in Chromium', { skip: missing }, () => {
  let server: ServedApp;
  let app: string;
  let browser: Browser;
  const userId = newUserId('history');
  let revoked: ApiKeyRecord[] = [];

  before(async () => {
    server = await startInProcessServer({ extraArgs: ['--app-port', '0'] });
    app = await appPageUrl(server);
    const old = Array.from({ length: 8 }, (_, i) => ({ name: `old script ${i + 1}`, revokedAgoMs: (i + 1) * HOUR_MS }));
    const active = ['website', 'backup job', 'spreadsheet'].map((name, i) => ({ name, requests: { 0: i + 1 } }));
    revoked = (await seedKeys(server.db, userId, [...old, ...active])).slice(0, 8);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signedInPage(viewport: { width: number; height: number }, user = userId): Promise<Page> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport });
    const page = await context.newPage();
    await signInAs(page, app, server, user);
    return page;
  }

  /** The distance from the top of the page to a heading, in CSS px. */
  async function topOf(page: Page, name: string): Promise<number> {
    const box = await page.getByRole('heading', { level: 2, name, exact: true }).boundingBox();
    return (box?.y ?? Infinity) + Number(await page.evaluate('window.scrollY'));
  }

  for (const [label, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    test(`${label}: "Generate a key" comes before the keys; the 8 revoked ones are folded in a closed section`, async () => {
      const page = await signedInPage(viewport);
      assert.ok((await topOf(page, 'Generate a key')) < (await topOf(page, 'Your API keys')), 'Generate a key first');
      const active = page.locator('table.keys > tbody > tr');
      assert.equal(await active.count(), 3, 'the active keys only in the list');
      assert.match(await active.first().innerText(), /spreadsheet/);

      const folded = page.locator('details.old-keys');
      assert.equal(await folded.locator('summary').innerText(), 'Revoked keys (8)');
      assert.equal(await folded.getAttribute('open'), null, 'closed');
      assert.equal(await page.getByText('old script 1', { exact: true }).isVisible(), false);

      await folded.locator('summary').click();
      const items = folded.locator('li');
      assert.equal(await items.count(), 8);
      for (const key of revoked) {
        const item = items.filter({ hasText: key.name });
        const text = await item.innerText();
        assert.match(text, new RegExp(`${key.prefix}…`), `${key.name}: its prefix`);
        const iso = new Date(key.revokedAt ?? 0).toISOString();
        assert.equal(await item.locator('time').getAttribute('datetime'), iso, `${key.name}: when it was revoked`);
        assert.match(text, /revoked/);
      }
      assert.ok(!(await folded.innerText()).includes(' of 1000000'), 'no quota use of a revoked key');
      assert.equal(await folded.locator('svg').count(), 0, 'no chart of a revoked key');
      await page.screenshot({ path: screenshotPath(`keys-list-history-${label}.png`), fullPage: true });
      await page.context().close();
    });
  }

  test('phone: the generate form, the webhooks and the CSV download stay near the top', async () => {
    const page = await signedInPage(PHONE);
    for (const heading of ['Generate a key', 'Webhooks', 'Download your meals (CSV)']) {
      const top = await topOf(page, heading);
      assert.ok(top < PHONE_BOUND_PX, `${heading} starts ${Math.round(top)} px down, within ${PHONE_BOUND_PX}`);
    }
    assert.ok((await topOf(page, 'Generate a key')) < PHONE.height, 'the generate form on the first screen');
    const rows = await page
      .locator('table.keys > tbody > tr')
      .evaluateAll((trs) => trs.map((tr) => tr.getBoundingClientRect().height));
    for (const height of rows) assert.ok(height < 260, `an active key is a compact row, ${Math.round(height)} px high`);
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    assert.ok(overflow <= 0, `nothing wider than the phone (${overflow} px too wide)`);
    await page.context().close();
  });

  test('after a revoke the page names the key by its name, or by its prefix when it has none', async () => {
    const user = newUserId('names');
    const [unnamed] = await seedKeys(server.db, user, [{ name: '' }, { name: 'website' }]);
    const page = await signedInPage(PHONE, user);
    for (const [link, notice] of [
      [/^Revoke the key “website”/, 'The key “website” was revoked.'],
      [new RegExp(`^Revoke the key ${unnamed?.prefix}…`), `The key ${unnamed?.prefix}… was revoked.`],
    ] as const) {
      await page.getByRole('link', { name: link }).click();
      await page.getByRole('button', { name: 'Revoke this key' }).click();
      assert.equal(await page.getByRole('status').innerText(), notice);
    }
    assert.equal(await page.locator('details.old-keys summary').innerText(), 'Revoked keys (2)');
    await page.context().close();
  });

  test('an expired key is folded with the revoked ones, and said to have expired', async () => {
    const user = newUserId('expired');
    const [gone] = await seedKeys(server.db, user, [{ name: 'trial', expired: true }, { name: 'live' }]);
    const page = await signedInPage(DESKTOP, user);
    const folded = page.locator('details.old-keys');
    assert.equal(await folded.locator('summary').innerText(), 'Revoked and expired keys (1)');
    await folded.locator('summary').click();
    const item = folded.locator('li');
    assert.match(await item.innerText(), /trial/);
    assert.match(await item.innerText(), /expired/);
    const iso = new Date(gone?.expiresAt ?? 0).toISOString();
    assert.equal(await item.locator('time').getAttribute('datetime'), iso);
    assert.equal(await page.locator('table.keys > tbody > tr').count(), 1);
    await page.context().close();
  });
});
