import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { newUserId } from '../support/server.js';
import { useAppPage } from './app-page-fixture.js';
import { browserMissing, signInAs } from './browser.js';
import { sessionRows } from './session-rows.js';

const missing = browserMissing();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** "HH:MM UTC", as the page shows a time of day. */
const clock = (epochMs: number) => `${new Date(epochMs).toISOString().slice(11, 16)} UTC`;

/**
 * How long a session lasts, as a person sees it (docs/app.md#staying-signed-in): its end in the
 * header, moved on while the page is used (never past 12 hours after sign-in), a warning before it.
 */
describe('the app page session, in use', { skip: missing }, () => {
  const appPage = useAppPage({ context: { timezoneId: 'UTC' } });
  let rows: ReturnType<typeof sessionRows>;

  before(() => {
    rows = sessionRows(appPage.server.db);
  });

  const signedIn = (userId: string, width = 1280): Promise<Page> =>
    appPage.signedIn(userId, { viewport: { width, height: 800 } });

  /** The end the header shows: its text and its machine-readable time. */
  const shownEnd = async (page: Page) => {
    const time = page.locator('.account time');
    return { text: await time.innerText(), datetime: await time.getAttribute('datetime') };
  };

  for (const width of [1280, 390]) {
    test(`the header says until when the person is signed in (${width} px)`, async () => {
      const userId = newUserId('until');
      const page = await signedIn(userId, width);
      const { expiresAt } = rows.read(userId);
      assert.match(
        await page.locator('.account').innerText(),
        new RegExp(`Signed in as ${userId} until ${clock(expiresAt)}`),
      );
      assert.deepEqual(await shownEnd(page), { text: clock(expiresAt), datetime: new Date(expiresAt).toISOString() });
      assert.ok(await page.locator('.account time').isVisible());
      const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
      assert.ok(scrollWidth <= width, `the page is ${scrollWidth} px wide at ${width} px`);
      assert.equal(await page.locator('.session-warning').isVisible(), false, 'no warning an hour ahead');
      await page.close();
    });
  }

  test('using the page moves the end an hour on, writing to the store at most once in 5 minutes', async () => {
    const userId = newUserId('slide');
    const page = await signedIn(userId);
    // As if 50 minutes had passed since the page was last used.
    rows.set(userId, { expiresAt: Date.now() + 10 * MINUTE });
    const before = Date.now();
    await page.reload();
    const moved = rows.read(userId).expiresAt;
    assert.ok(moved >= before + HOUR, `ends ${(moved - before) / MINUTE} minutes on, not an hour`);
    assert.deepEqual(await shownEnd(page), { text: clock(moved), datetime: new Date(moved).toISOString() });

    await page.getByLabel('Name').fill('moves it too');
    await page.getByRole('button', { name: 'Generate a key' }).click();
    await page.getByRole('heading', { name: /Your new key/ }).waitFor();
    assert.equal(rows.read(userId).expiresAt, moved, 'a minute later, not written again');
    await page.close();
  });

  test('12 hours after sign-in the end moves no more, and the warning says so without a button', async () => {
    const userId = newUserId('cap');
    const page = await signedIn(userId);
    const now = Date.now();
    const limit = now + 3 * MINUTE;
    rows.set(userId, { createdAt: limit - 12 * HOUR, expiresAt: limit });
    await page.reload();
    assert.equal(rows.read(userId).expiresAt, limit, 'not moved past 12 hours after sign-in');
    const warning = page.locator('.session-warning');
    await warning.waitFor();
    assert.match(
      await warning.innerText(),
      new RegExp(`Your session ends at ${clock(limit)}, 12 hours after you signed in`),
    );
    assert.equal(await warning.getByRole('button').count(), 0, 'nothing to press: it cannot be extended');
    await page.close();
  });

  test('a few minutes before the end a warning offers to stay signed in, keeping what was typed', async () => {
    const userId = newUserId('stay');
    const page = await appPage.newPage({ viewport: { width: 390, height: 844 } });
    await page.clock.install();
    await signInAs(page, appPage.app, appPage.server, userId);
    const warning = page.locator('.session-warning');
    const stay = warning.getByRole('button', { name: 'Stay signed in' });
    const firstEnd = rows.read(userId).expiresAt;
    // On the page as a CSV range the wrong way round left it: the press comes back to it as it was.
    const shownRange = '?from=2026-03-10&to=2026-03-01';
    await page.goto(`${appPage.app}/${shownRange}`);
    await page.getByLabel('Name').fill('half-typed name');

    // The page left alone for 56 minutes; on the server's side, 4 minutes are left.
    await page.clock.fastForward(56 * MINUTE);
    await stay.waitFor();
    assert.match(await warning.innerText(), new RegExp(`Your session ends at ${clock(firstEnd)}`));
    assert.ok(await stay.isVisible(), 'in sight at phone width');
    rows.set(userId, { expiresAt: Date.now() + 4 * MINUTE });
    const pressed = Date.now();
    await stay.click();
    await page.waitForLoadState();
    await page.getByRole('heading', { level: 1, name: 'Export (API, CSV)' }).waitFor();
    assert.equal(new URL(page.url()).search, shownRange, 'back at the address it was pressed on, its query too');
    const extended = rows.read(userId).expiresAt;
    assert.ok(extended >= pressed + HOUR, 'an hour from the press');
    assert.equal((await shownEnd(page)).text, clock(extended));
    assert.equal(await warning.isVisible(), false, 'the warning is gone');
    await page.getByText('What you had typed is back').waitFor();
    assert.equal(await page.getByLabel('Name').inputValue(), 'half-typed name', 'what was typed is still there');

    // Pressed again when this page's use gained under 5 minutes: it still moves the end to an hour from now.
    rows.set(userId, { expiresAt: Date.now() + 57 * MINUTE });
    await page.clock.fastForward(56 * MINUTE);
    await stay.waitFor();
    const again = Date.now();
    await stay.click();
    await page.getByRole('heading', { level: 1, name: 'Export (API, CSV)' }).waitFor();
    assert.ok(rows.read(userId).expiresAt >= again + HOUR, 'an hour from the second press');
    await page.close();
  });

  test('once the session has ended the warning says so and shows the way back', async () => {
    const userId = newUserId('over');
    const page = await appPage.newPage();
    await page.clock.install();
    await signInAs(page, appPage.app, appPage.server, userId);
    await page.clock.fastForward(61 * MINUTE);
    const warning = page.locator('.session-warning');
    await warning.getByText('Your session has ended').waitFor();
    assert.equal(await warning.getByRole('button', { name: 'Stay signed in' }).isVisible(), false);
    assert.match(await warning.innerText(), /open the app and choose Resources, then Export \(API, CSV\)/i);
    await page.close();
  });
});
