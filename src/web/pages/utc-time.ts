import { type Html, html } from '../html.js';

/**
 * A moment as the page writes it: a `<time>` whose text and title are UTC, to the minute or the
 * second, or a time of day ('clock': within the day, such as the session's end). Without script
 * that is what a person reads; static/local-time.js then shows the browser's own time zone in
 * the same form and leaves the UTC text in the title, for hover.
 */
export function renderUtcTime(epochMs: number, precision: 'minute' | 'second' | 'clock' = 'minute'): Html {
  const iso = new Date(epochMs).toISOString();
  const clock = iso.slice(11, precision === 'second' ? 19 : 16);
  const text = precision === 'clock' ? `${clock} UTC` : `${iso.slice(0, 10)} ${clock} UTC`;
  return html`<time datetime="${iso}" title="${text}">${text}</time>`;
}
