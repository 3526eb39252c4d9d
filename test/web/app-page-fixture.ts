import { after, before } from 'node:test';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { launchChromium, signInAs } from './browser.js';
import { appPageUrl } from './page-client.js';

export interface AppPageOptions {
  /** `serve` flags besides `--app-port 0`, asked for when it starts (a receiver's are known only then). */
  readonly serveArgs?: () => readonly string[];
  /** What every page's browser context gets (a time zone), besides accepting the test certificate. */
  readonly context?: BrowserContextOptions;
}

/** A running app page and Chromium, for the tests of one describe. */
export interface AppPage {
  readonly server: ServedApp;
  /** The app page's address. */
  readonly app: string;
  readonly browser: Browser;
  /** A page in a browser context of its own, closed after the tests. */
  newPage(options?: BrowserContextOptions): Promise<Page>;
  /** A new page with `userId` signed in, as a person signs in. */
  signedIn(userId: string, options?: BrowserContextOptions): Promise<Page>;
}

/**
 * The set-up the app page's browser tests share: `serve --app-port 0` and Chromium, started in
 * a before hook and stopped in an after hook of the describe this is called in.
 */
export function useAppPage(options: AppPageOptions = {}): AppPage {
  let server: ServedApp | undefined;
  let app: string | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the app page is not started: use it inside a test');
    return value;
  };

  before(async () => {
    server = await startInProcessServer({ extraArgs: ['--app-port', '0', ...(options.serveArgs?.() ?? [])] });
    app = await appPageUrl(server);
    browser = await launchChromium();
  });

  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.stop();
  });

  const newPage = async (contextOptions: BrowserContextOptions = {}): Promise<Page> => {
    const context = await started(browser).newContext({
      ignoreHTTPSErrors: true,
      ...options.context,
      ...contextOptions,
    });
    contexts.push(context);
    return context.newPage();
  };

  return {
    get server() {
      return started(server);
    },
    get app() {
      return started(app);
    },
    get browser() {
      return started(browser);
    },
    newPage,
    signedIn: async (userId, contextOptions) => {
      const page = await newPage(contextOptions);
      await signInAs(page, started(app), started(server), userId);
      return page;
    },
  };
}
