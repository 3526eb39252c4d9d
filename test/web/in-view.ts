import type { Locator, Page } from 'playwright-core';

/** The two widths the page is checked at: a desktop and a phone. */
export const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** The little of an element the check below reads (the tests build without the DOM's types). */
interface Boxed {
  getBoundingClientRect(): { readonly top: number; readonly bottom: number };
  readonly ownerDocument: { readonly documentElement: { readonly clientHeight: number } };
}

/**
 * Waits (up to 5 s) for the focus to leave the body. A page's `autofocus` is applied at its
 * next rendering step, after the element is in the DOM and before it is scrolled into view, so
 * a check made as soon as the element appears can see neither; when the focus never moves,
 * the checks below read the page as it is and the caller's assertion says so.
 */
async function autofocusApplied(page: Page): Promise<void> {
  await page
    .waitForFunction('document.activeElement !== null && document.activeElement !== document.body', undefined, {
      timeout: 5000,
    })
    .catch(() => undefined);
}

/**
 * How far the element's box is from lying whole within the window (0: in view), once the page's
 * autofocus has been applied (every result these tests look at takes the focus).
 */
export async function outOfView(locator: Locator): Promise<number> {
  await autofocusApplied(locator.page());
  return locator.evaluate((element: Boxed) => {
    const box = element.getBoundingClientRect();
    const height = element.ownerDocument.documentElement.clientHeight;
    return Math.max(0, -box.top) + Math.max(0, box.bottom - height);
  });
}

export interface Focused {
  readonly id: string;
  readonly tag: string;
  /** Its text; empty when the focus is nowhere (on the page's body). */
  readonly text: string;
  readonly invalid: string | null;
  /** The text of the elements its aria-describedby names. */
  readonly describedBy: string;
}

/** What has the keyboard focus once the page's autofocus is applied, and the accessible wiring of a field. */
export async function focused(page: Page): Promise<Focused> {
  await autofocusApplied(page);
  return page.evaluate<Focused>(`(() => {
    const element = document.activeElement ?? document.body;
    if (element === document.body) return { id: '', tag: 'body', text: '', invalid: null, describedBy: '' };
    const describedBy = (element.getAttribute('aria-describedby') ?? '')
      .split(/\\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ');
    return {
      id: element.id,
      tag: element.tagName.toLowerCase(),
      text: element.textContent ?? '',
      invalid: element.getAttribute('aria-invalid'),
      describedBy: describedBy.replace(/\\s+/g, ' ').trim(),
    };
  })()`);
}
