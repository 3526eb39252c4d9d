import { type ApiKeyRecord } from '../../domain/key-records.js';
import { isActiveKey } from '../../domain/api-key.js';
import { MAX_ACTIVE_KEYS } from '../../domain/key-request.js';
import { type Html, html } from '../html.js';
import { renderCsvSection, renderQuickStart } from './export-sections.js';
import { type KeysListView, renderKeysList } from './keys-list.js';
import { csrfField, type Notice, renderLayout, renderNotice, type SignedIn } from './layout.js';
import { renderWebhooksSection, type WebhooksSectionView } from './webhooks-section.js';

export interface KeysPageView extends KeysListView {
  readonly signedIn: SignedIn;
  /** The API's base URL, for the quick start. */
  readonly apiUrl: string;
  /** The id the generate form asks for (keys/issue-api-key.ts: sent twice, it makes one key). */
  readonly nextKeyId: string;
  /** The webhooks section (webhooks-section.ts). */
  readonly webhooks: WebhooksSectionView;
  /** A key just generated: the one time it is shown. */
  readonly newKey?: { readonly key: string; readonly record: ApiKeyRecord };
  /** A one-line outcome ("The key “my website” was revoked.") or a refusal, shown above the forms. */
  readonly notice?: Notice;
}

/** The key lifetimes the form offers (values parsed by domain/duration.ts). */
export const EXPIRY_CHOICES: readonly { readonly value: string; readonly label: string }[] = [
  { value: '', label: 'Never (until revoked)' },
  { value: '7d', label: 'In 7 days' },
  { value: '30d', label: 'In 30 days' },
  { value: '90d', label: 'In 90 days' },
  { value: '365d', label: 'In 1 year' },
];

function renderNewKey(newKey: NonNullable<KeysPageView['newKey']>): Html {
  return html`<section class="new-key" aria-labelledby="new-key-title">
    <h2 id="new-key-title">Your new key${newKey.record.name === '' ? '' : html` “${newKey.record.name}”`}</h2>
    <p>
      <strong>Copy it now: this is the only time it is shown.</strong> Keep it secret, in a password manager or your
      server's secret settings. Never put it in a web page, a browser or an app on someone's phone: anyone who has it
      can read your meals, and the API refuses browsers.
    </p>
    <div class="key-box">
      <code id="new-key-value">${newKey.key}</code>
      <button type="button" class="copy" data-copy-from="new-key-value" hidden>Copy</button>
    </div>
  </section>`;
}

/** The generate form's hidden field naming the key it makes. */
export const KEY_ID_FIELD = 'keyId';

/**
 * The generate form, or at the limit of active keys the limit said instead of a form that
 * could only fail and throw the typed name away (as the webhooks section does).
 */
function renderGenerateForm(view: KeysPageView): Html {
  const active = view.keys.filter((key) => isActiveKey(key, view.now)).length;
  if (active >= MAX_ACTIVE_KEYS) {
    return html`<section aria-labelledby="generate-title">
      <h2 id="generate-title">Generate a key</h2>
      <p>
        You have ${active} of ${MAX_ACTIVE_KEYS} active keys, the most allowed: revoke one you no longer use to generate
        another.
      </p>
    </section>`;
  }
  return html`<section aria-labelledby="generate-title">
    <h2 id="generate-title">Generate a key</h2>
    <p class="hint">${active} of ${MAX_ACTIVE_KEYS} active keys.</p>
    <form method="post" action="/keys" class="stacked">
      ${csrfField(view.signedIn.csrf)}
      <input type="hidden" name="${KEY_ID_FIELD}" value="${view.nextKeyId}" />
      <label for="key-name">Name <span class="muted">(optional: what will use it)</span></label>
      <input id="key-name" name="name" maxlength="100" autocomplete="off" placeholder="e.g. my website" />
      <label for="key-expiry">Expires</label>
      <select id="key-expiry" name="expiresIn">
        ${EXPIRY_CHOICES.map((choice) => html`<option value="${choice.value}">${choice.label}</option>`)}
      </select>
      <button type="submit">Generate a key</button>
    </form>
  </section>`;
}

/** Resources → Export (API, CSV): the user's keys, a new one once, the CSV download and a quick start. */
export function renderKeysPage(view: KeysPageView): string {
  const notice = renderNotice(view.notice);
  return renderLayout(
    'Your API keys',
    view.signedIn,
    html`<h1>Export (API, CSV)</h1>
      <p class="lead">
        API keys let your own programs read your meals from the meal-export API. Each key allows one request every 3
        seconds and ${view.dailyLimit} a day.
      </p>
      ${notice} ${view.newKey === undefined ? '' : renderNewKey(view.newKey)} ${renderGenerateForm(view)}
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Your API keys</h2>
        ${renderKeysList(view)}
      </section>
      ${renderWebhooksSection(view.webhooks)} ${renderCsvSection()} ${renderQuickStart(view.apiUrl)}`,
  );
}
