import type { ApiKeyRecord, KeyDayRequests } from '../../domain/key-records.js';
import { type Html, html } from '../html.js';
import { csrfField } from './layout.js';
import { renderUtcTime } from './utc-time.js';

const DAY_MS = 86_400_000;

/** An app the person connected (docs/connect.md#revocation-and-disconnecting): its key, by the app's name. */
export interface ConnectedApp {
  readonly appId: string;
  /** The app's name now; its key's name (the app's then) once the app is gone. */
  readonly name: string;
  readonly key: ApiKeyRecord;
}

export interface ConnectedAppsView {
  readonly apps: readonly ConnectedApp[];
  readonly requests: readonly KeyDayRequests[];
  readonly now: number;
  readonly dailyLimit: number;
  readonly csrf: string;
}

function renderRow(app: ConnectedApp, view: ConnectedAppsView, today: number): Html {
  const usedToday = view.requests.find((row) => row.keyId === app.key.id && row.day === today)?.requests ?? 0;
  return html`<tr>
    <th scope="row">${app.name}</th>
    <td data-label="Connected">${renderUtcTime(app.key.createdAt)}</td>
    <td data-label="Last used">${app.key.lastUsedAt === null ? 'never' : renderUtcTime(app.key.lastUsedAt)}</td>
    <td data-label="Today">${usedToday} of ${view.dailyLimit}</td>
    <td data-label="" class="key-actions">
      <form method="post" action="/connected-apps/${encodeURIComponent(app.appId)}/disconnect">
        ${csrfField(view.csrf)}
        <button type="submit" class="danger">Disconnect<span class="visually-hidden"> ${app.name}</span></button>
      </form>
    </td>
  </tr>`;
}

/**
 * Connected apps, apart from the keys the person made: each app that holds a key by their
 * consent, when it was connected, its use, and Disconnect, which revokes its key at once. A
 * plain form: it works without script.
 */
export function renderConnectedApps(view: ConnectedAppsView): Html {
  const today = Math.floor(view.now / DAY_MS);
  const body =
    view.apps.length === 0
      ? html`<p>No app is connected. An app that asks to read your meals brings you here to allow it.</p>`
      : html`<table class="keys">
          <thead>
            <tr>
              <th scope="col">App</th>
              <th scope="col">Connected</th>
              <th scope="col">Last used</th>
              <th scope="col">Today</th>
              <th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${view.apps.map((app) => renderRow(app, view, today))}
          </tbody>
        </table>`;
  return html`<section aria-labelledby="connected-title">
    <h2 id="connected-title">Connected apps</h2>
    ${body}
  </section>`;
}
