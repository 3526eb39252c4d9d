import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, Result, RunOptions } from 'axe-core';
import type { Page } from 'playwright-core';

/** axe-core's browser build, from node_modules (a pinned devDependency). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** WCAG 2.0 and 2.1, levels A and AA, and axe's best practices (landmarks, one h1, headings in order…). */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] as const;

/** The two widths every state is checked at (a phone's, where tables become cards). */
export const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

const OPTIONS: RunOptions = {
  runOnly: { type: 'tag', values: [...AXE_TAGS] },
  resultTypes: ['violations', 'incomplete'],
};

function describeResults(kind: string, results: readonly Result[]): string[] {
  return results.map((result) => {
    const targets = result.nodes.map((node) => `      ${node.target.join(' ')}`).join('\n');
    return `  ${kind} ${result.id} (${result.impact ?? 'no impact'}): ${result.help}\n${targets}`;
  });
}

/**
 * Runs axe on the page as it is and fails listing every violation (rule, impact, the elements'
 * selectors), and every result axe left for a person to review ("incomplete"): none is left
 * unreviewed, so each is either fixed or would be named here.
 *
 * axe goes in through `page.evaluate`, which DevTools runs outside the page's
 * Content-Security-Policy: `addScriptTag({ content })` adds an inline script, which the page's
 * `script-src 'self'` refuses, and `bypassCSP` would switch the policy off for the whole context,
 * hiding from the other tests any inline style or script the page itself should not have.
 */
export async function expectNoAxeViolations(page: Page, stateName: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate<AxeResults>(`axe.run(document, ${JSON.stringify(OPTIONS)})`);
  // A page axe could not read (blank, an error page of the browser's) would pass nothing either.
  assert.ok(results.passes.length > 0, `axe checked nothing on "${stateName}"`);
  const found = [
    ...describeResults('violation', results.violations),
    ...describeResults('needs review', results.incomplete),
  ];
  assert.deepEqual(found, [], `axe on "${stateName}" (${page.url()}):\n${found.join('\n')}`);
}

/**
 * The same check at each of VIEWPORTS, in the light and the dark colour scheme: the page is
 * resized and re-coloured in place, as its layout and colours (and so contrast) change with both.
 */
export async function expectNoAxeViolationsEverywhere(page: Page, stateName: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await expectNoAxeViolations(
        page,
        `${stateName}, ${viewport.name} ${viewport.width}x${viewport.height}, ${colorScheme}`,
      );
    }
  }
}

/**
 * For axe-core on a state reached without script: Chromium runs no script at all in a page whose
 * context has script turned off (axe's included), so `checker`, a page whose context allows
 * script, opens the same address with the first page's cookies and every script file of the
 * page refused: the markup and styles a person without script gets, for
 * expectNoAxeViolationsEverywhere to check. It stays as it opened: nothing on it changes by itself.
 */
export async function openWithoutScript(page: Page, checker: Page): Promise<void> {
  await checker.context().addCookies(await page.context().cookies());
  await checker.route(
    (url) => url.pathname.endsWith('.js'),
    (route) => route.abort(),
  );
  await checker.goto(page.url());
}
