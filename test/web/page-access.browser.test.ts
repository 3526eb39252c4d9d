import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { newUserId } from '../support/server.js';
import { useAppPage } from './app-page-fixture.js';
import { browserMissing } from './browser.js';

const missing = browserMissing();

type Rgb = readonly [number, number, number];

/** `rgb(r, g, b)` or `rgba(…)` as computed styles give it. */
function rgbOf(css: string): Rgb {
  const [r = 0, g = 0, b = 0] = (/rgba?\(([^)]+)\)/.exec(css)?.[1] ?? '').split(',').map((part) => Number(part.trim()));
  return [r, g, b];
}

/** WCAG 2's contrast ratio of two colours. */
function contrast(a: Rgb, b: Rgb): number {
  const luminance = (rgb: Rgb) => {
    const [r, g, bl] = rgb.map((channel) => {
      const c = channel / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** The page reached by keyboard, narrow screens and low vision (WCAG 2.1 AA beyond what axe checks). */
describe('the app page, accessible', { skip: missing }, () => {
  const appPage = useAppPage();
  const signedIn = (width: number): Promise<Page> =>
    appPage.signedIn(newUserId('a11y'), { viewport: { width, height: 800 } });

  test('the first Tab stop skips to the content', async () => {
    const page = await signedIn(1280);
    await page.keyboard.press('Tab');
    assert.equal(
      await page.evaluate<string>('document.activeElement.textContent.trim()'),
      "Skip to the page's content",
    );
    assert.equal(await page.locator('.skip').isVisible(), true, 'visible once focused');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate<string>('document.activeElement.id'), 'main');
  });

  test('code blocks that scroll sideways are reached by keyboard; nothing scrolls sideways at 320 px', async () => {
    const page = await signedIn(320);
    const blocks = await page.evaluate<number[]>("[...document.querySelectorAll('pre')].map((pre) => pre.tabIndex)");
    assert.ok(blocks.length >= 2);
    assert.deepEqual(
      blocks,
      blocks.map(() => 0),
      'every pre is a Tab stop',
    );
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(width <= 320, `the page is ${width} px wide at 320 px`);
  });

  test('a screen reader names each code block as its Tab stop is reached: a region with a label', async () => {
    const page = await signedIn(1280);
    // aria-label on a bare <pre> (a generic element) is one screen readers may not read.
    for (const name of ['A request that reads your meals', 'Keeping a CSV copy with pull']) {
      const block = page.getByRole('region', { name, exact: true }).and(page.locator('pre'));
      assert.equal(await block.count(), 1, name);
    }
  });

  test("the focus ring and the fields' edges stand out at 3:1 at least (WCAG 1.4.11)", async () => {
    const page = await signedIn(1280);
    const field = page.getByLabel('Name');
    await field.focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    const [ring, border, background] = await page.evaluate<[string, string, string]>(`(() => {
      const input = document.activeElement;
      const style = getComputedStyle(input);
      return [style.outlineColor, style.borderTopColor, getComputedStyle(input.closest('section')).backgroundColor];
    })()`);
    const paper = rgbOf(background);
    assert.ok(contrast(rgbOf(ring), paper) >= 3, `focus ring ${ring} on ${background}`);
    assert.ok(contrast(rgbOf(border), paper) >= 3, `field edge ${border} on ${background}`);
  });
});
