import { formatInstant } from '../domain/instant.js';
import type { ClaimedWebhookEvent } from '../domain/webhook-records.js';

/**
 * The body of a call (docs/webhooks.md#the-call), exactly these fields in this order: a thin "your
 * meals changed, from … through …", never meal data. `timestamp` is when the event was made,
 * so every retry of one event sends the same bytes.
 */
export function renderWebhookBody(event: ClaimedWebhookEvent): string {
  const timestamp = formatInstant(event.createdAt);
  // A test, and an erased user's last call (docs/webhooks.md#when-a-user-is-erased): the user alone.
  if (event.type === 'webhook.test' || event.type === 'user.erased') {
    return JSON.stringify({ type: event.type, timestamp, data: { userId: event.userId } });
  }
  return JSON.stringify({
    type: event.type,
    timestamp,
    data: {
      userId: event.userId,
      from: formatInstant(event.from ?? event.createdAt),
      through: formatInstant(event.through ?? event.createdAt),
    },
  });
}
