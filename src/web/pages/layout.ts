import { CSRF_FIELD } from '../csrf.js';
import { renderUtcTime } from './utc-time.js';
import { type Html, html } from '../html.js';
import { SESSION_MAX_MS } from '../sessions.js';

/** What every page knows: the diet app's page (--app-home-url), where "Resources" leads back. */
export interface SignedOut {
  readonly appHome: string | undefined;
}

/** Who is signed in, for the header's account area, and until when (sessions.ts). */
export interface SignedIn extends SignedOut {
  readonly userId: string;
  readonly csrf: string;
  readonly session: {
    /** When it ends unless the page is used again. */
    readonly endsAt: number;
    /** Milliseconds from this page's making to that end: the warning's clock, whatever the browser's says. */
    readonly endsIn: number;
    /** False at its 12-hour limit: staying longer is then no longer possible. */
    readonly canStayLonger: boolean;
  };
}

function isSignedIn(visitor: SignedIn | SignedOut): visitor is SignedIn {
  return 'userId' in visitor;
}

/** How a signed-out person gets a new sign-in link: the app's page, else the words to find it. */
export function renderWayBack(appHome: string | undefined): Html {
  return appHome === undefined
    ? html`<p>To get a new link, open the app and choose Resources, then Export (API, CSV).</p>`
    : html`<p><a class="button-link" href="${appHome}">Go back to the app to get a new link</a></p>`;
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

/** How long before the session's end its warning shows (static/session-end.js). */
const WARN_BEFORE_MS = 5 * 60_000;

/**
 * The warning static/session-end.js shows a few minutes before the session ends, then once it
 * has ended; hidden in the HTML, so without script nothing shows (using the page moves the end on).
 */
function renderSessionWarning(signedIn: SignedIn): Html {
  const { session } = signedIn;
  return html`<div
    class="session-warning"
    role="alert"
    data-ends-in="${session.endsIn}"
    data-warn-before="${WARN_BEFORE_MS}"
    hidden
  >
    ${
      session.canStayLonger
        ? html`<p class="session-ending">Your session ends at ${renderUtcTime(session.endsAt, 'clock')}.</p>
            <form method="post" action="/session">
              ${csrfField(signedIn.csrf)}
              <input type="hidden" name="back" value="/" />
              <button type="submit">Stay signed in</button>
            </form>`
        : html`<p class="session-ending">
            Your session ends at ${renderUtcTime(session.endsAt, 'clock')}, ${SESSION_MAX_MS / 3_600_000} hours after
            you signed in: then get a new link from the app.
          </p>`
    }
    <div class="session-ended" hidden>
      <p>Your session has ended. What you typed here is kept in this tab and put back once you sign in again.</p>
      ${renderWayBack(signedIn.appHome)}
    </div>
  </div>`;
}

/**
 * The document around every page: one stylesheet and deferred scripts, all from /static
 * (the CSP allows nothing inline), a viewport for phones, the app's menu path as a heading.
 */
export function renderLayout(title: string, visitor: SignedIn | SignedOut, main: Html): string {
  const account = isSignedIn(visitor)
    ? html`<form class="account" method="post" action="/logout">
        ${csrfField(visitor.csrf)}
        <span
          >Signed in as <strong>${visitor.userId}</strong> until ${renderUtcTime(visitor.session.endsAt, 'clock')}</span
        >
        <button type="submit" class="secondary">Sign out</button>
      </form>`
    : '';
  const resources = visitor.appHome === undefined ? 'Resources' : html`<a href="${visitor.appHome}">Resources</a>`;
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
        <script src="/static/local-time.js" defer></script>
        <script type="module" src="/static/session-end.js"></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to the page's content</a>
        <header class="top">
          <nav aria-label="Breadcrumb">
            <ol class="crumbs">
              <li>${resources}</li>
              <li aria-current="page">Export (API, CSV)</li>
            </ol>
          </nav>
          ${account}
        </header>
        ${isSignedIn(visitor) ? renderSessionWarning(visitor) : ''}
        <main id="main" tabindex="-1">${main}</main>
      </body>
    </html> `.text;
}

/** A page that says one thing: signed out, a spent link, a refused form, a missing page; Html lines as they are. */
export function renderMessagePage(
  title: string,
  lines: readonly (string | Html)[],
  visitor: SignedIn | SignedOut,
): string {
  return renderLayout(
    title,
    visitor,
    html`<h1>${title}</h1>
      ${lines.map((line) => (typeof line === 'string' ? html`<p>${line}</p>` : line))}
      ${isSignedIn(visitor) ? html`<p><a href="/">Back to your API keys</a></p>` : ''}`,
  );
}
