import { isActiveKey } from '../../domain/api-key.js';
import type { ApiKeyRecord, KeyDayRequests } from '../../domain/key-records.js';
import { type Html, html } from '../html.js';
import { chartPeak, renderChartLegend, renderUsageChart } from '../usage-chart.js';
import { renderUtcTime } from './utc-time.js';

const DAY_MS = 86_400_000;

export interface KeysListView {
  readonly keys: readonly ApiKeyRecord[];
  /** Accepted requests per key and day over the chart's 30 days. */
  readonly requests: readonly KeyDayRequests[];
  readonly now: number;
  readonly dailyLimit: number;
}

/** How the page names a key in its sentences: by its name, or by its prefix when it has none. */
export function keyLabel(key: ApiKeyRecord): string {
  return key.name === '' ? `${key.prefix}…` : `“${key.name}”`;
}

function when(epochMs: number | null, none: string): Html {
  return epochMs === null ? html`${none}` : renderUtcTime(epochMs);
}

function renderName(key: ApiKeyRecord): Html {
  return key.name === '' ? html`<span class="muted">(no name)</span>` : html`${key.name}`;
}

function renderKeyRow(key: ApiKeyRecord, view: KeysListView, today: number, peak: number): Html {
  const counts = view.requests.filter((row) => row.keyId === key.id);
  const usedToday = counts.find((row) => row.day === today)?.requests ?? 0;
  return html`<tr>
    <th scope="row">${renderName(key)} <code class="key-prefix">${key.prefix}…</code></th>
    <td data-label="Created">${when(key.createdAt, '')}</td>
    <td data-label="Last used">${when(key.lastUsedAt, 'never')}</td>
    <td data-label="Expires">${when(key.expiresAt, 'never')}</td>
    <td data-label="Today">${usedToday} of ${view.dailyLimit}</td>
    <td data-label="" class="key-chart">${renderUsageChart(today, counts, peak, keyLabel(key))}</td>
    <td data-label="" class="key-actions">
      <a class="button-link danger" href="/keys/${encodeURIComponent(key.id)}/revoke"
        >Revoke<span class="visually-hidden"> the key ${keyLabel(key)}</span>…</a
      >
    </td>
  </tr>`;
}

function renderActiveKeys(keys: readonly ApiKeyRecord[], view: KeysListView): Html {
  if (keys.length === 0) return html`<p>You have no active API keys.</p>`;
  const today = Math.floor(view.now / DAY_MS);
  const ids = new Set(keys.map((key) => key.id));
  const peak = chartPeak(
    today,
    view.requests.filter((row) => ids.has(row.keyId)),
  );
  return html`<table class="keys" aria-describedby="keys-note">
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Expires</th>
          <th scope="col">Today</th>
          <th scope="col">Last 30 days</th>
          <th scope="col"><span class="visually-hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${keys.map((key) => renderKeyRow(key, view, today, peak))}
      </tbody>
    </table>
    ${peak > 0 ? renderChartLegend(peak) : ''}
    <p id="keys-note" class="hint">
      Requests count once accepted (a refused 429 does not); the daily quota resets at 00:00 UTC.
    </p>`;
}

/** When a key stopped working: revoked, or expired. */
const endOf = (key: ApiKeyRecord): number => key.revokedAt ?? key.expiresAt ?? 0;

/**
 * Keys that no longer work, folded in a closed `<details>`, one line each: they stay on record
 * without pushing the forms below down a phone's screen with every key ever revoked.
 */
function renderOldKeys(keys: readonly ApiKeyRecord[]): Html | '' {
  if (keys.length === 0) return '';
  const anyExpired = keys.some((key) => key.revokedAt === null);
  const sorted = [...keys].sort((a, b) => endOf(b) - endOf(a));
  return html`<details class="old-keys">
    <summary>${anyExpired ? 'Revoked and expired keys' : 'Revoked keys'} (${keys.length})</summary>
    <ul>
      ${sorted.map(
        (key) =>
          html`<li>
            <strong>${renderName(key)}</strong> <code>${key.prefix}…</code>
            <span class="muted">${key.revokedAt === null ? 'expired' : 'revoked'} ${renderUtcTime(endOf(key))}</span>
          </li>`,
      )}
    </ul>
  </details>`;
}

/** The user's keys: the active ones as rows with their use, newest first, then the rest folded. */
export function renderKeysList(view: KeysListView): Html {
  if (view.keys.length === 0) return html`<p>You have no API keys yet.</p>`;
  // Newest first: the key just made or used is the one a person looks for.
  const keys = [...view.keys].sort((a, b) => b.createdAt - a.createdAt);
  const active = keys.filter((key) => isActiveKey(key, view.now));
  return html`${renderActiveKeys(active, view)} ${renderOldKeys(keys.filter((key) => !isActiveKey(key, view.now)))}`;
}
