import assert from 'node:assert/strict';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { cliJson } from '../support/cli.js';
import { getMeals, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { browserMissing, launchChromium, signInAs } from './browser.js';
import { APP_DOC, docImages, imageFile, MAX_IMAGE_BYTES, pinChangingText, type Shot } from './doc-screenshots.js';
import { appPageUrl } from './page-client.js';

const missing = browserMissing();
if (missing !== undefined) process.stdout.write(`# skipping the app page's doc screenshots: ${missing}\n`);

/** `UPDATE_SCREENSHOTS=1 node --import tsx --test test/web/doc-screenshots.browser.test.ts` writes the images anew. */
const UPDATE = process.env.UPDATE_SCREENSHOTS === '1';

/** The states docs/app.md shows, in the order this test reaches them. */
const SHOTS: readonly Shot[] = [
  {
    state: 'keys',
    shows: [
      { role: 'heading', name: 'Generate a key' },
      { role: 'heading', name: 'Your API keys' },
      { role: 'text', name: 'Revoked keys (1)' },
    ],
  },
  {
    state: 'new-key',
    shows: [
      { role: 'heading', name: 'Your new key “my website”' },
      { role: 'button', name: 'Copy' },
    ],
  },
  {
    state: 'webhooks-secret',
    shows: [
      { role: 'heading', name: 'The secret of your new endpoint “reports server”' },
      { role: 'button', name: 'Copy' },
      { role: 'heading', name: 'Add an endpoint' },
    ],
  },
  {
    state: 'phone',
    shows: [
      { role: 'heading', name: 'Your API keys' },
      { role: 'text', name: 'Revoked keys (1)' },
    ],
  },
  {
    state: 'dark',
    shows: [
      { role: 'heading', name: 'Export (API, CSV)' },
      { role: 'heading', name: 'Generate a key' },
      { role: 'heading', name: 'Your API keys' },
    ],
  },
];

const imagePath = (state: string) => path.join(path.dirname(APP_DOC), imageFile(state));

test('docs/app.md embeds an image of each state shown here, with alt text naming what it shows', () => {
  const images = docImages();
  assert.deepEqual(
    [...images.keys()].filter((file) => file.startsWith('images/app-')).sort(),
    SHOTS.map((shot) => imageFile(shot.state)).sort(),
    'the images of docs/app.md are the states this test reaches',
  );
  for (const shot of SHOTS) {
    const alt = images.get(imageFile(shot.state)) ?? '';
    for (const shown of shot.shows)
      assert.ok(alt.includes(shown.name), `the alt text of ${shot.state} names “${shown.name}”`);
    if (UPDATE) continue;
    const file = imagePath(shot.state);
    assert.ok(existsSync(file), `${file} exists (UPDATE_SCREENSHOTS=1 makes it)`);
    const bytes = statSync(file).size;
    assert.ok(bytes < MAX_IMAGE_BYTES, `${file} is ${bytes} bytes`);
  }
});

/**
 * The states docs/app.md shows, reached in Chromium: each must still show, within the part
 * photographed, the headings and controls its alt text names. With UPDATE_SCREENSHOTS=1 the
 * images are taken anew. They are not compared pixel by pixel: fonts, anti-aliasing and
 * Chromium's rendering change from one machine and version to the next, and a comparison that
 * fails on those says nothing about the page. One user, `u_1042`, with fixed key names; the
 * dates, keys and ports are pinned before each shot (doc-screenshots.ts).
 */
describe('the states docs/app.md shows, in Chromium', { skip: missing }, () => {
  const userId = 'u_1042';
  let server: ServedApp;
  let app: string;
  let browser: Browser;
  let page: Page;
  const pinnedPrefixes = new Map<string, string>();

  /** Checks that `area` shows what the shot's alt text names, then (when updating) photographs it. */
  async function shoot(state: string, area: Locator | 'viewport'): Promise<void> {
    const shot = SHOTS.find((candidate) => candidate.state === state);
    assert.ok(shot !== undefined, state);
    const viewport = page.viewportSize() ?? { width: 0, height: 0 };
    for (const shown of shot.shows) {
      const within = area === 'viewport' ? page : area;
      const element = (
        shown.role === 'text'
          ? within.getByText(shown.name, { exact: true })
          : within.getByRole(shown.role, { name: shown.name, exact: true })
      ).first();
      const box = await element.boundingBox();
      assert.ok(box !== null, `${state}: “${shown.name}” is shown`);
      if (area === 'viewport') assert.ok(box.y + box.height <= viewport.height, `${state}: “${shown.name}” is in view`);
    }
    if (!UPDATE) return;
    await pinChangingText(page, pinnedPrefixes);
    mkdirSync(path.dirname(imagePath(state)), { recursive: true });
    if (area === 'viewport') await page.screenshot({ path: imagePath(state) });
    else await area.screenshot({ path: imagePath(state) });
  }

  before(async () => {
    server = await startInProcessServer({ extraArgs: ['--app-port', '0'], dailyLimit: 1000 });
    app = await appPageUrl(server);
    const create = (name: string, extra: readonly string[] = []) => {
      const args = ['keys', 'create', '--user', userId, '--name', name, '--db', server.db, ...extra];
      return cliJson<{ id: string; key: string }>(args);
    };
    const old = await create('old laptop');
    await cliJson(['keys', 'revoke', old.id, '--db', server.db]);
    const used = await create('back office', ['--expires-in', '90d']);
    for (let i = 0; i < 3; i += 1)
      assert.equal((await getMeals(server, used.key, { lastModifiedSince: '2025-01-01' })).status, 200);
    browser = await launchChromium();
    // In UTC, as a browser without script shows the page's times (docs/app.md#dates-and-times).
    page = await browser.newPage({
      ignoreHTTPSErrors: true,
      timezoneId: 'UTC',
      viewport: { width: 1280, height: 800 },
    });
    await signInAs(page, app, server, userId);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('the page with an active key used today and a revoked one, folded', async () => {
    // Tall enough for the folded revoked keys under the list.
    await page.setViewportSize({ width: 1280, height: 1000 });
    // Uses reach the store every 5 s (server.ts): reload until today's three show.
    const deadline = Date.now() + 30_000;
    while (!(await page.locator('table.keys').innerText()).includes('3 of 1000') && Date.now() < deadline) {
      await page.waitForTimeout(500);
      await page.goto(`${app}/`);
    }
    assert.match(await page.locator('table.keys').innerText(), /3 of 1000/);
    await shoot('keys', 'viewport');
  });

  test('a new key, shown once', async () => {
    await page.getByLabel('Name').fill('my website');
    await page.getByRole('button', { name: 'Generate a key' }).click();
    await shoot('new-key', page.locator('section.new-key'));
  });

  test("a new webhook endpoint's secret, shown once", async () => {
    await page.goto(`${app}/`);
    await page.getByRole('textbox', { name: /^URL/ }).fill('https://reports.example.com/meal-export');
    await page.getByLabel(/^Label/).fill('reports server');
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    await shoot('webhooks-secret', page.locator('#webhooks'));
  });

  test('the page at phone width', async () => {
    await page.goto(`${app}/`);
    await page.setViewportSize({ width: 390, height: 844 });
    // The list at the top: its cards, and the revoked key folded under them.
    await page.getByRole('heading', { name: 'Your API keys' }).evaluate((heading) => heading.scrollIntoView());
    await shoot('phone', 'viewport');
  });

  test("the page in the system's dark mode", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${app}/`);
    await shoot('dark', 'viewport');
  });
});
