import { html } from '../html.js';
import { renderLayout, type SignedOut } from './layout.js';

/**
 * What a login link opens: one button that signs in. The link itself changes nothing, so a
 * mail scanner or link preview that fetches it does not spend it, and the session starts from
 * a same-origin POST, whose response sets the session cookie for the next page.
 */
export function renderLoginPage(token: string, next: string | undefined, visitor: SignedOut): string {
  return renderLayout(
    'Sign in',
    visitor,
    html`<h1>Your API keys</h1>
      <p>Continue to see and manage the API keys that export your meals.</p>
      <form method="post" action="/login">
        <input type="hidden" name="token" value="${token}" />
        ${next === undefined ? '' : html`<input type="hidden" name="next" value="${next}" />`}
        <button type="submit">Continue</button>
      </form>
      <p class="hint">This sign-in link works once, within 15 minutes of being made.</p>`,
  );
}
