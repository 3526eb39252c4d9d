import { type Html, html } from '../html.js';

/**
 * A moment as the page writes it: a `<time>` whose text and title are UTC, to the minute or the
 * second. Without script that is what a person reads; static/local-time.js then shows the
 * browser's own time zone and leaves the UTC text in the title, for hover.
 */
export function renderUtcTime(epochMs: number, precision: 'minute' | 'second' = 'minute'): Html {
  const iso = new Date(epochMs).toISOString();
  const text = `${iso.slice(0, 10)} ${iso.slice(11, precision === 'second' ? 19 : 16)} UTC`;
  return html`<time datetime="${iso}" title="${text}">${text}</time>`;
}
