import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { PROJECT_ROOT } from '../support/project.js';
import type { ServedApp } from '../support/server.js';

/** Debian's Chromium (`apt-get install chromium`); .ci/run installs it when missing. */
export const CHROMIUM = '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can. */
export function browserMissing(): string | undefined {
  return existsSync(CHROMIUM)
    ? undefined
    : `${CHROMIUM} is missing: the browser tests need Chromium (apt-get install -y chromium; .ci/run installs it)`;
}

/** Headless Chromium with no sandbox (containers have none) and no background traffic. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Screenshots for review go here (git-ignored). */
export function screenshotPath(name: string): string {
  const dir = path.join(PROJECT_ROOT, 'test-results');
  mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

/**
 * Signs `userId` in to the app page at `app` in `page`, as a person does: the login link
 * the app's back end makes (`users login-link`'s, through meal-export/host on the server's
 * store), then Continue; resolves on the signed-in page.
 */
export async function signInAs(page: Page, app: string, server: ServedApp, userId: string): Promise<void> {
  const url = await server.loginLink(userId, app);
  await page.goto(url);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { level: 1, name: 'Export (API, CSV)' }).waitFor();
  // The heading is there before the page's deferred scripts have run; a test that moves the
  // page's clock on next (the session's warning) needs them to have read the clock first.
  await page.waitForLoadState('load');
}
