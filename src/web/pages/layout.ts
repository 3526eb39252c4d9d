import { CSRF_FIELD } from '../csrf.js';
import { type Html, html } from '../html.js';

/** Who is signed in, for the header's sign-out form; absent on signed-out pages. */
export interface SignedIn {
  readonly userId: string;
  readonly csrf: string;
}

/** The hidden CSRF field every state-changing form carries (csrf.ts). */
export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${csrf}" />`;
}

/**
 * What a form did, said at the top of its section: done (a status) or refused (an alert). It
 * has the focus as the page opens, so that it is in view and a screen reader reads it.
 */
export interface Notice {
  readonly kind: 'done' | 'refused';
  readonly text: string;
}

export function renderNotice(notice: Notice | undefined): Html | '' {
  if (notice === undefined) return '';
  const role = notice.kind === 'refused' ? 'alert' : 'status';
  return html`<p class="notice notice-${notice.kind}" role="${role}" tabindex="-1" autofocus>${notice.text}</p>`;
}

/**
 * The document around every page: one stylesheet and deferred scripts, all from /static
 * (the CSP allows nothing inline), a viewport for phones, the app's menu path as a heading.
 */
export function renderLayout(title: string, signedIn: SignedIn | undefined, main: Html): string {
  const account =
    signedIn === undefined
      ? ''
      : html`<form class="account" method="post" action="/logout">
          ${csrfField(signedIn.csrf)}
          <span>Signed in as <strong>${signedIn.userId}</strong></span>
          <button type="submit" class="secondary">Sign out</button>
        </form>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Export (API, CSV)</title>
        <link rel="icon" href="/static/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/static/app.css" />
        <script src="/static/copy-button.js" defer></script>
        <script src="/static/csv-range.js" defer></script>
        <script src="/static/webhook-test-result.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to the page's content</a>
        <header class="top">
          <nav aria-label="Breadcrumb">
            <ol class="crumbs">
              <li>Resources</li>
              <li aria-current="page">Export (API, CSV)</li>
            </ol>
          </nav>
          ${account}
        </header>
        <main id="main" tabindex="-1">${main}</main>
      </body>
    </html> `.text;
}

/** A page that says one thing: signed out, a spent link, a refused form, a missing page. */
export function renderMessagePage(title: string, lines: readonly string[], signedIn?: SignedIn): string {
  return renderLayout(
    title,
    signedIn,
    html`<h1>${title}</h1>
      ${lines.map((line) => html`<p>${line}</p>`)}
      ${signedIn === undefined ? '' : html`<p><a href="/">Back to your API keys</a></p>`}`,
  );
}
