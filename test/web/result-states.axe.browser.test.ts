import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Page, Route } from 'playwright-core';
import { cliJson, createWebhookByCli } from '../support/cli.js';
import { newUserId } from '../support/server.js';
import { startTrustedReceiver, type TrustedReceiver } from '../support/trusted-receiver.js';
import { waitFor } from '../support/wait-for.js';
import { expectNoAxeViolationsEverywhere } from './axe.js';
import { useAppPage } from './app-page-fixture.js';
import { browserMissing, signInAs } from './browser.js';
import { sessionRows } from './session-rows.js';

const missing = browserMissing();
if (missing !== undefined) process.stdout.write(`# skipping the result states' axe checks: ${missing}\n`);

const APP_HOME = 'https://diet.example/resources';
const WAY_BACK = 'Go back to the app to get a new link';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * The states a form's answer and a session's end bring the app page to pass axe-core too, as
 * page-states.axe.browser.test.ts and webhook-states.axe.browser.test.ts check the rest: the
 * session's warning and its end (docs/app.md#staying-signed-in) with `--app-home-url`'s way back,
 * the page a form's 303 opens (docs/app.md#what-a-form-did), the CSV form's own messages
 * (docs/app.md#the-csv-downloads-dates) and a test call's result (docs/app.md#a-test-calls-result).
 */
describe('the app page passes axe: results and session ends', { skip: missing }, () => {
  let receiver: TrustedReceiver;
  /** Test calls waiting for their answer: a test answers when it has checked the page waiting. */
  const held: ServerResponse[] = [];
  let rows: ReturnType<typeof sessionRows>;

  before(async () => {
    receiver = await startTrustedReceiver((response) => held.push(response));
  });
  // Registered before the app page's own after hook, so this runs first: no call is left waiting.
  after(() => {
    for (const response of held.splice(0)) response.destroy();
  });
  const appPage = useAppPage({
    serveArgs: () => ['--app-home-url', APP_HOME, ...receiver.serveArgs],
    context: { timezoneId: 'UTC' },
  });
  before(() => {
    rows = sessionRows(appPage.server.db);
  });
  after(async () => {
    await receiver?.close();
  });

  const newPage = () => appPage.newPage();
  const signedIn = (userId = newUserId('axe')): Promise<Page> => appPage.signedIn(userId);
  /** A page whose clock the test moves on, signed in: the session's warning shows without waiting an hour. */
  const signedInWithClock = async (userId: string): Promise<Page> => {
    const page = await newPage();
    await page.clock.install();
    await signInAs(page, appPage.app, appPage.server, userId);
    return page;
  };
  const warning = (page: Page) => page.locator('.session-warning');

  test('the warning before the end with Stay signed in; after it, what was typed put back', async () => {
    const userId = newUserId('axe');
    const page = await signedInWithClock(userId);
    await page.getByLabel('Name').fill('half-typed name');
    await page.clock.fastForward(56 * MINUTE);
    await warning(page).getByRole('button', { name: 'Stay signed in' }).waitFor();
    assert.match(await warning(page).innerText(), /Your session ends at \d\d:\d\d UTC/);
    await expectNoAxeViolationsEverywhere(page, 'session warning, with Stay signed in');

    await warning(page).getByRole('button', { name: 'Stay signed in' }).click();
    await page.getByRole('status').filter({ hasText: 'What you had typed is back' }).waitFor();
    assert.equal(await page.getByLabel('Name').inputValue(), 'half-typed name');
    await expectNoAxeViolationsEverywhere(page, 'what was typed, put back');
  });

  test('the warning at the 12-hour limit, without a button', async () => {
    const userId = newUserId('axe');
    const page = await newPage();
    await page.clock.install();
    const now = Date.now();
    await signInAs(page, appPage.app, appPage.server, userId);
    rows.set(userId, { createdAt: now - 12 * HOUR + 30 * MINUTE, expiresAt: now + 30 * MINUTE });
    await page.reload();
    await page.clock.fastForward(26 * MINUTE);
    await warning(page).getByText('12 hours after you signed in').waitFor();
    assert.equal(await warning(page).getByRole('button').count(), 0);
    await expectNoAxeViolationsEverywhere(page, 'session warning at its 12-hour limit');
  });

  test('the session ended: in the open page, then "Your session has ended" when it is used', async () => {
    const userId = newUserId('axe');
    const page = await signedInWithClock(userId);
    await page.clock.fastForward(61 * MINUTE);
    await warning(page).getByText('Your session has ended').waitFor();
    assert.equal(await warning(page).getByRole('link', { name: WAY_BACK }).getAttribute('href'), APP_HOME);
    await expectNoAxeViolationsEverywhere(page, 'session ended, in the open page');

    rows.set(userId, { expiresAt: Date.now() - 1000 });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'You are signed out' }).waitFor();
    assert.match(await page.locator('main').innerText(), /Your session has ended: a session ends 60 minutes after/);
    await page.getByRole('link', { name: WAY_BACK }).waitFor();
    await expectNoAxeViolationsEverywhere(page, 'your session has ended, with the way back');
  });

  test('a used sign-in link and Sign out, with the way back to the app', async () => {
    const { url } = await cliJson<{ url: string }>([
      'users',
      'login-link',
      '--user',
      newUserId('axe'),
      '--db',
      appPage.server.db,
      '--public-url',
      appPage.app,
    ]);
    const page = await newPage();
    for (let i = 0; i < 2; i += 1) {
      await page.goto(url);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForLoadState();
    }
    await page.getByRole('heading', { level: 1, name: 'This sign-in link cannot be used' }).waitFor();
    await page.getByRole('link', { name: WAY_BACK }).waitFor();
    await expectNoAxeViolationsEverywhere(page, 'used sign-in link, with the way back');

    const other = await signedIn();
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.getByRole('heading', { level: 1, name: 'You are signed out' }).waitFor();
    await other.getByRole('link', { name: WAY_BACK }).waitFor();
    await expectNoAxeViolationsEverywhere(other, 'signed out, with the way back');
  });

  test("a refused key name, said beside its field after the form's 303", async () => {
    const page = await signedIn();
    await page.getByLabel('Name').fill('bell\u0007');
    await page.getByRole('button', { name: 'Generate a key' }).click();
    await page.locator('#key-name[aria-invalid="true"]').waitFor();
    assert.match(await page.locator('#key-name-error').innerText(), /at most 100 characters of text/);
    assert.equal(await page.getByLabel('Name').inputValue(), 'bell\u0007', 'what was typed is kept');
    await expectNoAxeViolationsEverywhere(page, 'key name refused beside its field');
  });

  test('the CSV form: a range the wrong way round, said by the server, the days kept; a range without meals', async () => {
    const page = await signedIn();
    await page.getByLabel('Meals eaten from').fill('2025-03-05');
    await page.locator('#csv-to').fill('2025-03-01');
    // A browser that does not check the fields sends it: the server's answer, on the page.
    await page.evaluate('document.querySelector(\'form[action="/export.csv"]\').noValidate = true');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    await page.waitForURL(/from=2025-03-05/);
    await page.locator('#csv-from[aria-invalid="true"]').waitFor();
    assert.equal(await page.getByLabel('Meals eaten from').inputValue(), '2025-03-05');
    assert.equal(await page.locator('#csv-to').inputValue(), '2025-03-01');
    await expectNoAxeViolationsEverywhere(page, 'CSV range refused by the server, the days kept');

    await page.getByLabel('Meals eaten from').fill('2025-05-01');
    await page.locator('#csv-to').fill('2025-05-31');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    await page.getByText('No meals eaten from 2025-05-01 to 2025-05-31').waitFor();
    await expectNoAxeViolationsEverywhere(page, 'CSV range without meals');
  });

  test('a test call: on its way, then its result shown by itself', async () => {
    const userId = newUserId('axe');
    await createWebhookByCli(appPage.server.db, userId, receiver.url, 'my server');
    const page = await signedIn(userId);
    // The page's questions for the result are held until its "on its way" state has been
    // checked, so that the call can be answered at once: the sender gives up on a call after
    // 10 s, which eight axe runs on a loaded machine may outlast.
    const asked: Route[] = [];
    let holding = true;
    await page.route(
      (url) => url.pathname.endsWith('/calls'),
      (route) => (holding ? asked.push(route) : route.continue()),
    );
    await page.getByRole('button', { name: /^Send a test/ }).click();
    await page.getByText('A test call to “my server” is on its way').waitFor();
    await waitFor('the test call', () => held.length > 0, 10_000);
    held.shift()?.writeHead(204).end();
    await expectNoAxeViolationsEverywhere(page, 'test call on its way');
    assert.ok(await page.getByText('A test call to “my server” is on its way').isVisible(), 'still on its way');

    holding = false;
    for (const route of asked.splice(0)) await route.continue();
    await page.getByText(/The test call to “my server” was answered: HTTP 204/).waitFor({ timeout: 15_000 });
    await expectNoAxeViolationsEverywhere(page, 'test call answered, shown by itself');
  });
});
