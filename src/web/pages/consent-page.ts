import type { AuthorizationRequest } from '../../domain/oauth-authorization.js';
import { html } from '../html.js';
import { csrfField, renderLayout, renderNotice, type SignedIn } from './layout.js';

/** What the consent page shows of the app asking (docs/connect.md#what-the-person-sees). */
export interface AskingApp {
  readonly name: string;
  readonly homepageUrl: string | null;
}

/** The request's parameters, posted back with the decision: the page keeps no state of its own. */
const REQUEST_FIELDS = ['client_id', 'redirect_uri', 'state', 'code_challenge', 'code_challenge_method', 'scope'];

function requestFields(request: AuthorizationRequest): Record<string, string> {
  return {
    client_id: request.appId,
    redirect_uri: request.redirectUri,
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
    scope: request.scope,
  };
}

const KEYS_FULL =
  'You already have 10 active API keys, the most one person can hold. Revoke one on your API keys page first, then connect the app again.';

const hostOf = (url: string) => new URL(url).host;

/**
 * The consent page (docs/connect.md#what-the-person-sees): who asks (the app's name, and the
 * host of its homepage and of where the person is sent back, which an app cannot fake), what it
 * will read, and Allow or Cancel in one plain form, posted with the page's CSRF token. With 10
 * active keys already, it says so and offers no Allow.
 */
export function renderConsentPage(
  app: AskingApp,
  request: AuthorizationRequest,
  signedIn: SignedIn,
  keysFull: boolean,
): string {
  const fields = requestFields(request);
  const from = app.homepageUrl === null ? '' : html` (${hostOf(app.homepageUrl)})`;
  const allow = keysFull ? '' : html`<button type="submit" name="decision" value="allow">Allow</button>`;
  return renderLayout(
    `Connect ${app.name}`,
    signedIn,
    html`<h1>${app.name}${from} asks to read your meals</h1>
      <p>
        If you allow it, <strong>${app.name}</strong> can read
        <strong>your meals, every field, past and future, until you disconnect it</strong>. It cannot change or delete
        anything.
      </p>
      <p>You will then be sent back to <strong>${hostOf(request.redirectUri)}</strong>.</p>
      ${renderNotice(keysFull ? { kind: 'refused', text: KEYS_FULL } : undefined)}
      <p class="hint">You can disconnect it at any time under Connected apps on your API keys page.</p>
      <form method="post" action="/oauth/authorize" class="actions">
        ${csrfField(signedIn.csrf)}
        ${REQUEST_FIELDS.map((name) => html`<input type="hidden" name="${name}" value="${fields[name] ?? ''}" />`)}
        <input type="hidden" name="response_type" value="code" />
        ${allow}
        <button type="submit" name="decision" value="cancel" class="secondary">Cancel</button>
      </form>`,
  );
}
