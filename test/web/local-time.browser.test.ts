import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { browserMissing, launchChromium, signInAs } from './browser.js';
import { appPageUrl } from './page-client.js';
import { seedKeys } from './seeded-keys.js';

const missing = browserMissing();

/** The page's UTC text of a moment, to the minute: with its date, or a time of day alone (the session's end). */
const utcText = (iso: string, clock = false) => `${clock ? '' : `${iso.slice(0, 10)} `}${iso.slice(11, 16)} UTC`;

/** A time of day alone, as the header writes the session's end: "14:05 UTC". */
const isClock = (utc: string) => /^\d\d:\d\d UTC$/.test(utc);

/** The same moment as a person in `timeZone` reads it, worked out by Node's own time zone data. */
function localText(iso: string, timeZone: string, clock = false): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  }).formatToParts(new Date(iso));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  // "GMT+09:00" → "UTC+9", "GMT-03:30" → "UTC-3:30", "GMT" → "UTC".
  const offset = /^GMT([+-])(\d\d):(\d\d)$/.exec(part('timeZoneName'));
  const zone =
    offset === null ? 'UTC' : `UTC${offset[1]}${Number(offset[2])}${offset[3] === '00' ? '' : `:${offset[3]}`}`;
  const day = clock ? '' : `${part('year')}-${part('month')}-${part('day')} `;
  return `${day}${part('hour')}:${part('minute')} ${zone}`;
}

/**
 * The page's dates and times (docs/app.md#dates-and-times): UTC as the server writes them, the
 * browser's own time zone once its script runs, the UTC text on hover, each on one line.
 */
describe('dates on the app page, in the browser’s time zone', { skip: missing }, () => {
  let server: ServedApp;
  let app: string;
  let browser: Browser;
  const userId = newUserId('zones');

  before(async () => {
    server = await startInProcessServer({ extraArgs: ['--app-port', '0'] });
    app = await appPageUrl(server);
    await seedKeys(server.db, userId, [
      { name: 'an old script with a long name', revokedAgoMs: 5 * 3_600_000 },
      { name: 'website', requests: { 0: 1 } },
    ]);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function pageIn(
    options: { timezoneId?: string; javaScriptEnabled?: boolean; viewport?: { width: number; height: number } } = {},
  ): Promise<Page> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, ...options });
    const page = await context.newPage();
    await signInAs(page, app, server, userId);
    await page.locator('details.old-keys summary').click();
    return page;
  }

  /** Every visible <time> of the page: its datetime, its text, its title. */
  const times = (page: Page) =>
    page.locator('time').evaluateAll((elements) =>
      elements
        .filter((element) => element.getClientRects().length > 0)
        .map((element) => ({
          datetime: element.getAttribute('datetime') ?? '',
          text: (element as HTMLElement).innerText,
          title: element.getAttribute('title') ?? '',
        })),
    );

  for (const timezoneId of ['Asia/Tokyo', 'America/St_Johns']) {
    test(`in ${timezoneId}: created, last used and revoked show local time; the title keeps UTC`, async () => {
      const page = await pageIn({ timezoneId });
      const shown = await times(page);
      assert.ok(
        shown.length >= 3,
        `created and last used of the active key, when the other was revoked: ${shown.length}`,
      );
      assert.ok(
        shown.some(({ title }) => isClock(title)),
        "the header's session end is among them",
      );
      for (const { datetime, text, title } of shown) {
        const clock = isClock(title);
        assert.equal(text, localText(datetime, timezoneId, clock), `${datetime} in ${timezoneId}`);
        assert.equal(title, utcText(datetime, clock), 'UTC on hover');
      }
      await page.context().close();
    });
  }

  test('without script the page says UTC, as written', async () => {
    const page = await pageIn({ timezoneId: 'Asia/Tokyo', javaScriptEnabled: false });
    for (const { datetime, text, title } of await times(page)) {
      assert.equal(text, utcText(datetime, isClock(title)));
      assert.equal(title, text);
    }
    await page.context().close();
  });

  test('phone: each date stays on one line', async () => {
    const page = await pageIn({ timezoneId: 'America/St_Johns', viewport: { width: 390, height: 844 } });
    const lines = await page
      .locator('time')
      // The visible ones: the session's warning keeps its times hidden until it shows.
      .evaluateAll((elements) =>
        elements.map((element) => element.getClientRects().length).filter((count) => count > 0),
      );
    assert.ok(lines.length >= 3);
    assert.deepEqual(
      lines.filter((count) => count !== 1),
      [],
      'one line box per date',
    );
    await page.context().close();
  });
});
