import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { makeMeal, newUserId } from '../support/server.js';
import { useAppPage } from './app-page-fixture.js';
import { browserMissing, signInAs } from './browser.js';
import { focused, outOfView, VIEWPORTS } from './in-view.js';

const missing = browserMissing();

/**
 * The CSV download's dates (docs/app.md#the-csv-downloads-dates): tied so the first is on or
 * before the last, a range the wrong way round said beside the fields with the dates kept, and a
 * range without meals said on the page instead of downloading an empty file.
 */
describe("the CSV download's range of days", { skip: missing }, () => {
  const appPage = useAppPage();
  const userId = newUserId('csv');

  before(async () => {
    await appPage.server.importMeals(userId, [
      // Eaten where the app did not say: each on its UTC day (the local day is tested apart).
      makeMeal(undefined, { title: 'Porridge', date: '2025-03-01T07:30:00.000Z', utcOffset: null }),
      makeMeal(undefined, { title: 'Lentil soup', date: '2025-03-02T12:15:00.000Z', utcOffset: null }),
      makeMeal(undefined, { title: 'Apple', date: '2025-04-10T16:00:00.000Z', utcOffset: null }),
    ]);
  });

  /** A signed-in page, with the downloads and CSV requests it makes. */
  async function signedIn(
    viewport: { width: number; height: number },
    options: { user?: string; javaScriptEnabled?: boolean } = {},
  ): Promise<{ page: Page; downloads: string[]; asked: string[] }> {
    const page = await appPage.newPage({
      acceptDownloads: true,
      viewport,
      javaScriptEnabled: options.javaScriptEnabled ?? true,
    });
    const downloads: string[] = [];
    const asked: string[] = [];
    page.on('download', (download) => downloads.push(download.suggestedFilename()));
    page.on('request', (request) => {
      if (request.url().includes('/export.csv')) asked.push(request.url());
    });
    await signInAs(page, appPage.app, appPage.server, options.user ?? userId);
    return { page, downloads, asked };
  }
  const first = (page: Page) => page.getByLabel('Meals eaten from');
  const last = (page: Page) => page.locator('#csv-to');

  test('the two dates are tied as they change: the last starts at the first, the first ends at the last', async () => {
    const { page, asked } = await signedIn(VIEWPORTS[0]);
    await first(page).fill('2025-03-05');
    assert.equal(await last(page).getAttribute('min'), '2025-03-05');
    await last(page).fill('2025-03-10');
    assert.equal(await first(page).getAttribute('max'), '2025-03-10');

    await first(page).fill('2025-03-20');
    const message = page.getByText('The first day is after the last');
    await message.waitFor();
    assert.equal(await first(page).getAttribute('aria-invalid'), 'true');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    assert.deepEqual(asked, [], 'the browser sends no range the wrong way round');
    await first(page).fill('2025-03-01');
    assert.equal(await message.isVisible(), false, 'said no more once put right');
    assert.equal(await first(page).getAttribute('aria-invalid'), null);
    await page.context().close();
  });

  for (const viewport of VIEWPORTS) {
    test(`without script, a range the wrong way round is said beside the fields, the dates kept (${viewport.name})`, async () => {
      const { page, downloads } = await signedIn(viewport, { javaScriptEnabled: false });
      await first(page).fill('2025-03-05');
      await last(page).fill('2025-03-01');
      await page.getByRole('button', { name: 'Download CSV' }).click();
      const message = page.getByText('The first day is after the last');
      await message.waitFor();
      assert.equal(
        await page.getByRole('heading', { level: 1 }).innerText(),
        'Export (API, CSV)',
        'on the page itself',
      );
      assert.equal(await first(page).inputValue(), '2025-03-05');
      assert.equal(await last(page).inputValue(), '2025-03-01');
      const field = await focused(page);
      assert.equal(field.id, 'csv-from', 'the first day has the focus');
      assert.equal(field.invalid, 'true');
      assert.match(field.describedBy, /The first day is after the last/);
      assert.equal(await last(page).getAttribute('aria-invalid'), 'true');
      assert.equal(await outOfView(message), 0);
      assert.equal(await outOfView(first(page)), 0);
      assert.deepEqual(downloads, []);
      await page.context().close();
    });

    test(`a range without meals says so beside the form, and downloads nothing (${viewport.name})`, async () => {
      const { page, downloads } = await signedIn(viewport);
      await first(page).fill('2025-05-01');
      await last(page).fill('2025-05-31');
      await page.getByRole('button', { name: 'Download CSV' }).click();
      const message = page.getByText('No meals eaten from 2025-05-01 to 2025-05-31');
      await message.waitFor();
      assert.equal(await outOfView(message), 0);
      assert.match((await focused(page)).text, /No meals eaten from 2025-05-01 to 2025-05-31/);
      assert.equal(await first(page).inputValue(), '2025-05-01', 'the dates are kept');
      assert.equal(await last(page).inputValue(), '2025-05-31');
      assert.deepEqual(downloads, [], 'no file of headers alone');

      await first(page).fill('2025-03-02');
      await last(page).fill('2025-04-10');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download CSV' }).click(),
      ]);
      const rows = readFileSync(await download.path(), 'utf8')
        .trim()
        .split('\r\n');
      assert.equal(rows.length, 3, 'a range with meals still downloads: the header and its 2 meals');
      await page.context().close();
    });
  }

  test('a person without meals is told so, with no file', async () => {
    const { page, downloads } = await signedIn(VIEWPORTS[1], { user: newUserId('nomeals') });
    await page.getByRole('button', { name: 'Download CSV' }).click();
    await page.getByText('You have no meals yet').waitFor();
    assert.deepEqual(downloads, []);
    await page.context().close();
  });
});
