import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verifyWebhook, type WebhookEvent } from '../../src/client/index.js';
import { newWebhookEventId, newWebhookSecret } from '../../src/domain/webhook-ids.js';
import { signWebhook } from '../../src/webhooks/webhook-signature.js';

// verifyWebhook against calls a later /v1 may make (docs/api.md#compatibility): an event type
// it does not know, and fields and headers it does not know, signed by the service's own signer.
const secret = newWebhookSecret();
const NOW_S = 1_795_000_000;

function call(event: object) {
  const id = newWebhookEventId();
  const body = JSON.stringify(event);
  return {
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(NOW_S),
      'webhook-signature': signWebhook([secret], id, NOW_S, body),
      'webhook-version': '2',
      'user-agent': 'meal-export/9.0.0',
    },
    body,
  };
}

/** What docs/webhooks.md's receiver does: act on the types it knows, answer 2XX to the rest. */
function receive(event: WebhookEvent): string {
  switch (event.type) {
    case 'meals.changed':
      return `sync ${event.data.userId}`;
    case 'webhook.test':
      return 'nothing';
    default:
      return 'ignored';
  }
}

test('a call of an event type the SDK does not know is verified and handed back as sent, for the receiver to ignore', () => {
  const event = {
    type: 'meals.archived',
    timestamp: '2027-03-01T10:00:00.000Z',
    data: { userId: 'u_42', archive: { before: '2026-01-01' } },
  };
  const { headers, body } = call(event);
  const verified = verifyWebhook(secret, headers, body, { now: NOW_S * 1000 });
  assert.deepEqual(verified, event);
  assert.equal(receive(verified), 'ignored');
});

test('a meals.changed call with fields the SDK does not know is verified, its known fields as today', () => {
  const event = {
    type: 'meals.changed',
    timestamp: '2027-03-01T10:00:00.000Z',
    data: {
      userId: 'u_42',
      from: '2027-03-01T09:59:58.120Z',
      through: '2027-03-01T09:59:59.870Z',
      count: 3,
    },
    attempt: { number: 1 },
  };
  const { headers, body } = call(event);
  const verified = verifyWebhook(secret, headers, Buffer.from(body), { now: NOW_S * 1000 });
  assert.deepEqual(verified, event);
  assert.equal(receive(verified), 'sync u_42');
  assert.equal(verified.type === 'meals.changed' ? verified.data.through : null, event.data.through);
});
