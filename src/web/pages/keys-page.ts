import { type ConnectedAppsView, renderConnectedApps } from './connected-apps.js';
import { type ApiKeyRecord } from '../../domain/key-records.js';
import { isActiveKey } from '../../domain/api-key.js';
import { MAX_ACTIVE_KEYS } from '../../domain/key-request.js';
import { type Html, html } from '../html.js';
import { type CsvFormView, renderCsvSection, renderQuickStart } from './export-sections.js';
import { type FormProblem, fieldState, renderFieldError, renderFormRefusal } from './form-problem.js';
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
  /** The apps the person connected (connected-apps.ts); `keys` holds the keys they made. */
  readonly connected: ConnectedAppsView;
  /** A key just generated: the one time it is shown. */
  readonly newKey?: { readonly key: string; readonly record: ApiKeyRecord };
  /** A one-line outcome ("The key “my website” was revoked."), shown above the forms. */
  readonly notice?: Notice;
  /** The CSV form as a download that could not be made left it. */
  readonly csv?: CsvFormView;
  /** A refused generate form: what was wrong, and its fields as they were sent. */
  readonly generate?: {
    readonly problem: FormProblem;
    readonly draft: { readonly name: string; readonly expiresIn: string };
  };
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
  // Focused as the page opens: in view, and read by a screen reader (docs/app.md#what-a-form-did).
  return html`<section id="new-key" class="new-key" aria-labelledby="new-key-title" tabindex="-1" autofocus>
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
  // Connected apps' keys count too: the limit is the person's, whoever holds the key.
  const active = view.keys.filter((key) => isActiveKey(key, view.now)).length + view.connected.apps.length;
  const problem = view.generate?.problem;
  const draft = view.generate?.draft;
  if (active >= MAX_ACTIVE_KEYS) {
    return html`<section id="generate" aria-labelledby="generate-title">
      <h2 id="generate-title">Generate a key</h2>
      ${renderFormRefusal(problem)}
      <p>
        You have ${active} of ${MAX_ACTIVE_KEYS} active keys, connected apps' included, the most allowed: revoke one you
        no longer use, or disconnect an app, to generate another.
      </p>
    </section>`;
  }
  const expiry = draft?.expiresIn ?? '';
  return html`<section id="generate" aria-labelledby="generate-title">
    <h2 id="generate-title">Generate a key</h2>
    <p class="hint">${active} of ${MAX_ACTIVE_KEYS} active keys.</p>
    ${renderFormRefusal(problem)}
    <form method="post" action="/keys" class="stacked">
      ${csrfField(view.signedIn.csrf)}
      <input type="hidden" name="${KEY_ID_FIELD}" value="${view.nextKeyId}" />
      <label for="key-name">Name <span class="muted">(optional: what will use it)</span></label>
      <input
        id="key-name"
        name="name"
        maxlength="100"
        autocomplete="off"
        placeholder="e.g. my website"
        value="${draft?.name ?? ''}"
        ${fieldState('key-name', problem)}
      />
      ${renderFieldError('key-name', problem)}
      <label for="key-expiry">Expires</label>
      <select id="key-expiry" name="expiresIn" ${fieldState('key-expiry', problem)}>
        ${EXPIRY_CHOICES.map(
          (choice) =>
            html`<option value="${choice.value}" ${choice.value === expiry ? 'selected' : ''}>${choice.label}</option>`,
        )}
      </select>
      ${renderFieldError('key-expiry', problem)}
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
      ${renderConnectedApps(view.connected)} ${renderWebhooksSection(view.webhooks)} ${renderCsvSection(view.csv)}
      ${renderQuickStart(view.apiUrl)}`,
  );
}
