import type { WebhookEndpointRecord } from '../../domain/webhook-records.js';
import { html } from '../html.js';
import { csrfField, renderLayout, type SignedIn } from './layout.js';

/** The confirmation before an endpoint is deleted: a form of its own, so it works without script. */
export function renderWebhookDeletePage(endpoint: WebhookEndpointRecord, signedIn: SignedIn): string {
  const label = endpoint.name === '' ? endpoint.url : `“${endpoint.name}” (${endpoint.url})`;
  return renderLayout(
    'Delete a webhook endpoint',
    signedIn,
    html`<h1>Delete the webhook endpoint ${label}?</h1>
      <p>
        It is called no more, its pending changes and its record of calls are dropped, and its secret stops working.
        This cannot be undone: to call this server again, add it again and give it the new secret.
      </p>
      <form method="post" action="/webhooks/${encodeURIComponent(endpoint.id)}/delete" class="actions">
        ${csrfField(signedIn.csrf)}
        <button type="submit" class="danger">Delete this endpoint</button>
        <a href="/#webhooks">Cancel</a>
      </form>`,
  );
}
