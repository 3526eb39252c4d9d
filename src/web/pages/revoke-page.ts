import type { ApiKeyRecord } from '../../domain/key-records.js';
import { html } from '../html.js';
import { keyLabel } from './keys-list.js';
import { csrfField, renderLayout, type SignedIn } from './layout.js';

/** The confirmation before a key is revoked: a form of its own, so it works without script. */
export function renderRevokePage(key: ApiKeyRecord, signedIn: SignedIn): string {
  const label = key.name === '' ? keyLabel(key) : `${keyLabel(key)} (${key.prefix}…)`;
  return renderLayout(
    'Revoke a key',
    signedIn,
    html`<h1>Revoke the key ${label}?</h1>
      <p>
        Every program that uses this key is refused from then on (within a second). This cannot be undone: to keep a
        program working, generate a new key first and give it the new one.
      </p>
      <form method="post" action="/keys/${encodeURIComponent(key.id)}/revoke" class="actions">
        ${csrfField(signedIn.csrf)}
        <button type="submit" class="danger">Revoke this key</button>
        <a href="/">Cancel</a>
      </form>`,
  );
}
