import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { browserMissing, launchChromium, screenshotPath, signInAs } from './browser.js';
import { appPageUrl } from './page-client.js';
import { seedKeys } from './seeded-keys.js';

const missing = browserMissing();

const DAY_MS = 86_400_000;
/** The part of an SVG element's DOM the test reads (the project's TypeScript has no DOM types). */
interface SVGGraphics {
  getBBox(): { readonly height: number };
}
const dayLabel = (daysAgo: number) =>
  new Date((Math.floor(Date.now() / DAY_MS) - daysAgo) * DAY_MS).toISOString().slice(0, 10);

/**
 * The usage charts of the keys list (docs/app.md#your-keys): one scale for every key of the
 * page, its peak said, today's unfinished bar in the legend, and the daily numbers as text a
 * keyboard and a screen reader reach.
 */
describe('the usage charts of the keys, in Chromium', { skip: missing }, () => {
  let server: ServedApp;
  let app: string;
  let browser: Browser;
  const userId = newUserId('charts');

  before(async () => {
    server = await startInProcessServer({ extraArgs: ['--app-port', '0'] });
    app = await appPageUrl(server);
    await seedKeys(server.db, userId, [
      { name: 'quiet', requests: { 1: 1 } },
      { name: 'busy', requests: { 2: 189, 0: 5 } },
    ]);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signedInPage(viewport: { width: number; height: number }): Promise<Page> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport });
    const page = await context.newPage();
    await signInAs(page, app, server, userId);
    return page;
  }

  const chartOf = (page: Page, name: string): Locator =>
    page
      .locator('table.keys > tbody > tr')
      .filter({ has: page.getByRole('rowheader', { name }) })
      .locator('figure');

  /** The heights of a chart's bars in its own units, oldest day first. */
  const barHeights = (chart: Locator) =>
    chart
      .locator('rect.chart-bar')
      .evaluateAll((rects) => rects.map((rect) => (rect as unknown as SVGGraphics).getBBox().height));

  for (const [label, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`${label}: 1 and 189 requests are bars of 1 to 189 on one scale, its peak and today's bar said`, async () => {
      const page = await signedInPage(viewport);
      const [quiet, busy] = [chartOf(page, 'quiet'), chartOf(page, 'busy')];
      const [[one = 0], [peak = 0, today = 0]] = [await barHeights(quiet), await barHeights(busy)];
      assert.ok(one > 0, 'a day of 1 request has a bar');
      assert.ok(Math.abs(peak / one - 189) < 0.5, `189 requests are 189 times as tall as 1 (${peak} / ${one})`);
      assert.ok(Math.abs(peak / today - 189 / 5) < 0.5, `and 189 / 5 the height of today's 5 (${peak} / ${today})`);
      const widths = await page.locator('figure svg').evaluateAll((svgs) => svgs.map((svg) => svg.clientWidth));
      assert.equal(new Set(widths).size, 1, 'both charts drawn at the same size, so the same scale on screen');

      for (const chart of [quiet, busy]) {
        assert.equal(await chart.locator('.chart-peak').innerText(), 'peak 189');
        assert.ok(await chart.locator('.chart-peak').isVisible());
      }
      const todayBar = busy.locator('rect.chart-today');
      assert.equal(await todayBar.count(), 1);
      assert.notEqual(
        await todayBar.evaluate('(rect) => getComputedStyle(rect).strokeDasharray'),
        'none',
        "today's bar is told apart by its dashed edge, not by its colour alone",
      );
      const legend = page.locator('.chart-legend');
      assert.ok(await legend.isVisible());
      assert.match(await legend.innerText(), /today, so far/);
      assert.match(await legend.innerText(), /same scale: its dashed top line is 189 requests/);
      assert.equal(await legend.locator('.legend-today').isVisible(), true, "the legend shows today's mark");
      await page.screenshot({ path: screenshotPath(`usage-charts-${label}.png`), fullPage: true });
      await page.context().close();
    });
  }

  test('a screen reader hears each chart as its caption; a keyboard opens its daily numbers as a table', async () => {
    const page = await signedInPage({ width: 1280, height: 800 });
    const figure = page.getByRole('figure', {
      name: `194 requests in the last 30 days; the busiest day was ${dayLabel(2)} with 189.`,
    });
    assert.equal(await figure.count(), 1, 'the chart is a figure named by its caption');
    assert.equal(await figure.locator('svg').getAttribute('aria-hidden'), 'true', 'the picture is not read out');

    const summary = figure.locator('summary');
    assert.equal(
      await summary.evaluate((element) => (element as unknown as { tabIndex: number }).tabIndex),
      0,
      'in the Tab order',
    );
    await summary.focus();
    await page.keyboard.press('Enter');
    const table = page.getByRole('table', { name: 'Accepted requests of “busy” per day' });
    await table.waitFor();
    const snapshot = await table.ariaSnapshot();
    assert.match(snapshot, new RegExp(`row "${dayLabel(2)} 189"`));
    assert.match(snapshot, new RegExp(`row "${dayLabel(0)} \\(today, so far\\) 5"`));
    assert.ok(!snapshot.includes(dayLabel(1)), 'a day without requests of this key is not a row');

    await page.keyboard.press('Tab');
    assert.equal(
      await page.locator(':focus').getAttribute('href'),
      await page.getByRole('link', { name: /^Revoke the key “busy”/ }).getAttribute('href'),
      'Tab moves on from the open numbers to the next control: no focus trap',
    );
    await page.context().close();
  });
});
