import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { PROJECT_ROOT } from '../support/project.js';

/** The page's doc, whose images the screenshot test takes. */
export const APP_DOC = path.join(PROJECT_ROOT, 'docs', 'app.md');
/** A screenshot in the docs stays a viewport or a section, not a whole page. */
export const MAX_IMAGE_BYTES = 150 * 1024;

/** Something a person sees in a screenshot, by role and accessible name, that its alt text names. */
export interface Shown {
  /** `text`: an element whose whole text is `name` (a `<summary>`, which has no role of its own). */
  readonly role: 'heading' | 'button' | 'table' | 'textbox' | 'text';
  readonly name: string;
}

/** One image of docs/app.md: `docs/images/app-<state>.png`, and what its alt text says it shows. */
export interface Shot {
  readonly state: string;
  readonly shows: readonly Shown[];
}

export const imageFile = (state: string): string => `images/app-${state}.png`;

/** The images docs/app.md embeds (`![alt](images/app-….png)`), alt text by file. */
export function docImages(): Map<string, string> {
  const markdown = readFileSync(APP_DOC, 'utf8');
  return new Map([...markdown.matchAll(/!\[([^\]]*)\]\((images\/[^)\s]+)\)/g)].map((m) => [m[2] ?? '', m[1] ?? '']));
}

/** Stand-ins for what changes from run to run, so that a regenerated image differs only where the page does. */
const FIXED = {
  /** The day the screenshots show as today. */
  today: '2025-03-14',
  time: '09:30',
  /** The end of the session the header shows ("Signed in as … until"): an hour after FIXED.time. */
  sessionEnd: '10:30',
  key: 'mxk_hAnX5PjzCWw8yAzlrgTDezDOCoa5hfjOOQHufGnuIt0UZuR8v',
  prefixes: ['mxk_qlIrBkD0', 'mxk_XCkwgqMT', 'mxk_6G1x6BU4'],
  secret: 'whsec_mBn3tvd5wNqaQyYzuLOvhPIx1WitI0lVunzAyuEUZTY=',
  apiPort: '8443',
};

/**
 * Rewrites, in the page's text only, the dates (shifted so that today reads as FIXED.today, and
 * every other day as many days from it), the times of day (the session's end included), the keys, their prefixes, the
 * secret and the API's port: the server's clock and random values, not the page, make those.
 * `prefixes` (real to shown) carries over from one shot to the next, so that a key keeps its
 * prefix in every image. Run after every assertion about the page, just before its screenshot.
 */
export async function pinChangingText(page: Page, prefixes: Map<string, string>): Promise<void> {
  const shown = await page.evaluate<[string, string][]>(String.raw`((fixed, known) => {
    const DAY = 86400000;
    const today = Math.floor(Date.now() / DAY);
    const fixedToday = Date.parse(fixed.today) / DAY;
    const shiftDay = (iso) => new Date((Math.floor(Date.parse(iso) / DAY) - today + fixedToday) * DAY).toISOString().slice(0, 10);
    const prefixes = new Map(known);
    const newKey = document.getElementById('new-key-value')?.textContent.trim();
    if (newKey !== undefined) prefixes.set(newKey.slice(0, 12), fixed.key.slice(0, 12));
    const keyOf = (real) => {
      if (real.length > 12) return fixed.key;
      if (!prefixes.has(real)) prefixes.set(real, fixed.prefixes[prefixes.size % fixed.prefixes.length]);
      return prefixes.get(real);
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const dated = node.parentElement?.closest('time, figcaption') !== null;
      if (node.parentElement?.closest('.account time, .session-warning time') != null) {
        node.textContent = node.textContent.replace(/\d\d:\d\d/, fixed.sessionEnd);
        continue;
      }
      node.textContent = node.textContent
        .replace(/mxk_[0-9A-Za-z]{8}(?:[0-9A-Za-z]{41})?/g, keyOf)
        .replace(/whsec_[A-Za-z0-9+\/]{43}=/g, fixed.secret)
        .replace(/(127\.0\.0\.1|localhost):\d+/g, '$1:' + fixed.apiPort)
        .replace(/\d{4}-\d\d-\d\d(?: \d\d:\d\d(:\d\d)?)?/g, (text, seconds) =>
          dated ? shiftDay(text.slice(0, 10)) + (text.length > 10 ? ' ' + fixed.time + (seconds === undefined ? '' : ':00') : '') : text);
    }
    return [...prefixes];
  })(${JSON.stringify(FIXED)}, ${JSON.stringify([...prefixes])})`);
  for (const [real, fake] of shown) prefixes.set(real, fake);
}
