import { describeAttemptOutcome } from '../../domain/webhook-attempt-outcome.js';
import type { WebhookAttemptRecord, WebhookEndpointRecord } from '../../domain/webhook-records.js';
import { type Html, html } from '../html.js';

/** A test call just sent from the page ("Send a test"), and its attempt once made. */
export interface TestCallView {
  readonly endpoint: WebhookEndpointRecord;
  /** The test's event id: its attempts carry it. */
  readonly eventId: string;
  readonly attempt: WebhookAttemptRecord | undefined;
}

/** An endpoint in a sentence: its label in quotes, or its URL. */
export function endpointInWords(endpoint: WebhookEndpointRecord): string {
  return endpoint.name === '' ? endpoint.url : `“${endpoint.name}”`;
}

/** The page that shows the test call's state, from the store then (where "Show its result" leads). */
export function testCallPath(endpointId: string, eventId: string): string {
  return `/?${new URLSearchParams({ webhook: endpointId, done: 'tested', event: eventId }).toString()}`;
}

/** Where webhook-test-result.js asks for the notice and the endpoint's calls (webhook-routes.ts). */
function pollPath(endpointId: string, eventId: string): string {
  return `/webhooks/${encodeURIComponent(endpointId)}/calls?${new URLSearchParams({ event: eventId }).toString()}`;
}

/**
 * The notice of a test call (docs/app.md#a-test-calls-result): on its way, or what came of it.
 * One live region (role=status) whose words webhook-test-result.js replaces when the result is
 * there, so that a screen reader says it; without script, "Show its result" loads the page again.
 */
export function renderTestNotice(view: TestCallView): Html {
  const { endpoint, eventId, attempt } = view;
  const label = endpointInWords(endpoint);
  if (attempt === undefined) {
    return html`<p
      id="webhook-test-result"
      class="notice notice-done"
      role="status"
      tabindex="-1"
      autofocus
      data-poll="${pollPath(endpoint.id, eventId)}"
    >
      A test call to ${label} is on its way: its result shows here within seconds.
      <a href="${testCallPath(endpoint.id, eventId)}" data-show-result>Show its result</a>
    </p>`;
  }
  const ok = attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
  return html`<p
    id="webhook-test-result"
    class="notice notice-${ok ? 'done' : 'refused'}"
    role="status"
    tabindex="-1"
    autofocus
  >
    The test call to ${label} ${ok ? 'was answered' : 'failed'}: ${describeAttemptOutcome(attempt)} · ${attempt.ms} ms.
  </p>`;
}
