import {
  MAX_WEBHOOK_NAME_LENGTH,
  MAX_WEBHOOK_URL_LENGTH,
  MAX_WEBHOOKS_PER_USER,
} from '../../domain/webhook-endpoint.js';
import { describeAttemptOutcome, waitingReason } from '../../domain/webhook-attempt-outcome.js';
import type { WebhookAttemptRecord, WebhookEndpointRecord } from '../../domain/webhook-records.js';
import { type Html, html } from '../html.js';
import { type FormProblem, fieldState, renderFieldError, renderFormRefusal } from './form-problem.js';
import { csrfField, type Notice, renderNotice } from './layout.js';
import { renderTestNotice, type TestCallView } from './webhook-test-notice.js';
import { renderUtcTime } from './utc-time.js';

/** The add form's hidden field naming the endpoint it makes (sent twice, it makes one). */
export const WEBHOOK_ID_FIELD = 'webhookId';
/** How many of an endpoint's last attempts (50 are kept) the page lists. */
export const ATTEMPTS_SHOWN = 5;

export interface WebhookRow {
  readonly endpoint: WebhookEndpointRecord;
  /** The last attempts, newest first. */
  readonly attempts: readonly WebhookAttemptRecord[];
}

export interface WebhooksSectionView {
  readonly csrf: string;
  readonly rows: readonly WebhookRow[];
  /** The id the add form asks for. */
  readonly nextWebhookId: string;
  /** A secret just made (added or rotated): the one time it is shown. */
  readonly newSecret?: {
    readonly endpoint: WebhookEndpointRecord;
    readonly secret: string;
    readonly rotated: boolean;
  };
  /** What a refused add form held, to correct rather than type again, and what was wrong. */
  readonly draft?: { readonly url: string; readonly name: string };
  readonly problem?: FormProblem;
  /** The outcome of the last webhook form, shown in this section. */
  readonly notice?: Notice;
  /** A test call just sent: its notice, in place of the one above. */
  readonly testing?: TestCallView;
}

function labelOf(endpoint: WebhookEndpointRecord): string {
  return endpoint.name === '' ? endpoint.url : endpoint.name;
}

function renderNewSecret(newSecret: NonNullable<WebhooksSectionView['newSecret']>): Html {
  const title = newSecret.rotated ? 'The new secret of' : 'The secret of your new endpoint';
  // Focused as the page opens: in view, and read by a screen reader (docs/app.md#what-a-form-did).
  return html`<div id="webhook-secret" class="new-key" tabindex="-1" autofocus>
    <h3>${title} “${labelOf(newSecret.endpoint)}”</h3>
    <p>
      <strong>Copy it now: this is the only time it is shown.</strong> Your server checks each call's
      <code>webhook-signature</code> with it (any Standard Webhooks library does).
      ${newSecret.rotated ? 'For 24 hours calls are signed with both the old and the new secret.' : ''}
    </p>
    <div class="key-box">
      <code id="new-webhook-secret">${newSecret.secret}</code>
      <button type="button" class="copy" data-copy-from="new-webhook-secret" hidden>Copy</button>
    </div>
  </div>`;
}

/** An endpoint's last calls, by an id webhook-test-result.js replaces them by when a test's result comes. */
export function renderCalls(row: WebhookRow): Html {
  return html`<div id="calls-${row.endpoint.id}" data-calls>${renderAttempts(row)}</div>`;
}

function renderAttempts(row: WebhookRow): Html {
  if (row.attempts.length === 0) return html`<p class="muted">No calls yet.</p>`;
  return html`<ul class="attempts">
    ${row.attempts.slice(0, ATTEMPTS_SHOWN).map((attempt) => {
      const ok = attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
      return html`<li>
        ${renderUtcTime(attempt.at, 'second')} ·
        <span class="${ok ? 'attempt-ok' : 'attempt-failed'}">${describeAttemptOutcome(attempt)}</span> · ${attempt.ms}
        ms
      </li>`;
    })}
  </ul>`;
}

function postButton(
  csrf: string,
  id: string,
  action: string,
  label: string,
  hidden: string,
  extra: Html | '' = '',
): Html {
  return html`<form method="post" action="/webhooks/${encodeURIComponent(id)}/${action}">
    ${csrfField(csrf)} ${extra}
    <button type="submit" class="secondary">${label}<span class="visually-hidden"> ${hidden}</span></button>
  </form>`;
}

/** The rotate form's hidden field: which rotation the page saw, so that the form sent twice rotates once. */
export const ROTATION_FIELD = 'rotation';

/** The rotation an endpoint is at: when its previous secret expires, or 0 before any rotation. */
export function rotationOf(endpoint: WebhookEndpointRecord): string {
  return String(endpoint.previousSecretExpiresAt ?? 0);
}

/** An enabled endpoint whose changes wait for a server that may call it, said so. */
function waitingNote(row: WebhookRow): Html | '' {
  const reason = row.endpoint.status === 'enabled' ? waitingReason(row.attempts[0]) : undefined;
  return reason === undefined ? '' : html`<p class="hint">${reason.charAt(0).toUpperCase()}${reason.slice(1)}.</p>`;
}

function renderEndpoint(row: WebhookRow, csrf: string): Html {
  const { endpoint } = row;
  const label = labelOf(endpoint);
  return html`<li class="webhook">
    <div class="webhook-head">
      <strong>${endpoint.name === '' ? html`<span class="muted">(no name)</span>` : endpoint.name}</strong>
      <span class="status status-${endpoint.status}">${endpoint.status}</span>
    </div>
    <code class="webhook-url">${endpoint.url}</code>
    ${
      endpoint.status === 'disabled'
        ? html`<p class="hint">
            Not called since its calls failed (or it answered 410 Gone). Your changes are kept meanwhile: re-enable it
            to send them.
          </p>`
        : ''
    }
    ${waitingNote(row)}
    <h3 class="visually-hidden">Last calls to ${label}</h3>
    ${renderCalls(row)}
    <div class="webhook-actions">
      ${postButton(csrf, endpoint.id, 'test', 'Send a test', `to ${label}`)}
      ${endpoint.status === 'disabled' ? postButton(csrf, endpoint.id, 'enable', 'Re-enable', label) : ''}
      ${postButton(
        csrf,
        endpoint.id,
        'rotate',
        'Rotate the secret',
        `of ${label}`,
        html`<input type="hidden" name="${ROTATION_FIELD}" value="${rotationOf(endpoint)}" />`,
      )}
      <a class="button-link danger" href="/webhooks/${encodeURIComponent(endpoint.id)}/delete"
        >Delete<span class="visually-hidden"> the endpoint ${label}</span>…</a
      >
    </div>
  </li>`;
}

function renderAddForm(view: WebhooksSectionView): Html {
  const problem = view.problem;
  if (view.rows.length >= MAX_WEBHOOKS_PER_USER) {
    return html`${renderFormRefusal(problem)}
      <p class="hint">You have ${MAX_WEBHOOKS_PER_USER} endpoints, the most allowed: delete one to add another.</p>`;
  }
  return html`<form id="webhook-add" method="post" action="/webhooks" class="stacked">
    ${csrfField(view.csrf)}
    <input type="hidden" name="${WEBHOOK_ID_FIELD}" value="${view.nextWebhookId}" />
    <h3>Add an endpoint</h3>
    ${renderFormRefusal(problem)}
    <label for="webhook-url">URL <span class="muted">(https://, on your server)</span></label>
    <span id="webhook-url-hint" class="hint">It must start with https://: calls are never sent in the clear.</span>
    <input
      id="webhook-url"
      name="url"
      type="url"
      required
      pattern="https://.+"
      title="An https:// address: webhooks are only sent over TLS"
      maxlength="${MAX_WEBHOOK_URL_LENGTH}"
      autocomplete="off"
      placeholder="https://example.com/meal-export-hook"
      value="${view.draft?.url ?? ''}"
      ${fieldState('webhook-url', problem, 'webhook-url-hint')}
    />
    ${renderFieldError('webhook-url', problem)}
    <label for="webhook-name">Label <span class="muted">(optional: which server it is)</span></label>
    <input
      id="webhook-name"
      name="name"
      maxlength="${MAX_WEBHOOK_NAME_LENGTH}"
      autocomplete="off"
      value="${view.draft?.name ?? ''}"
      ${fieldState('webhook-name', problem)}
    />
    ${renderFieldError('webhook-name', problem)}
    <button type="submit">Add the endpoint</button>
  </form>`;
}

/** Webhooks (docs/webhooks.md#registering-an-endpoint): the user's endpoints, their last calls and their forms. */
export function renderWebhooksSection(view: WebhooksSectionView): Html {
  const notice = view.testing === undefined ? renderNotice(view.notice) : renderTestNotice(view.testing);
  return html`<section id="webhooks" aria-labelledby="webhooks-title">
    <h2 id="webhooks-title">Webhooks</h2>
    <p>
      Your server can be called when your meals change, instead of asking every few minutes. The call says only that
      meals changed and up to when; read them with the API as usual. Up to ${MAX_WEBHOOKS_PER_USER} endpoints.
    </p>
    ${notice} ${view.newSecret === undefined ? '' : renderNewSecret(view.newSecret)}
    ${
      view.rows.length === 0
        ? html`<p>You have no webhook endpoints yet.</p>`
        : html`<ul class="webhooks">
            ${view.rows.map((row) => renderEndpoint(row, view.csrf))}
          </ul>`
    }
    ${renderAddForm(view)}
  </section>`;
}
