import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newWebhookEventId, newWebhookSecret } from '../../src/domain/webhook-ids.js';
import { signWebhook } from '../../src/webhooks/webhook-signature.js';

// The Standard Webhooks JavaScript library's own "sign function works" vector
// (libraries/javascript/src/webhook.test.ts in standard-webhooks/standard-webhooks).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestampS: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const BODY = JSON.stringify({
  type: 'meals.changed',
  timestamp: '2026-11-23T10:00:00.000Z',
  data: { userId: 'u_42 — café', from: '2026-11-23T09:59:58.120Z', through: '2026-11-23T09:59:59.870Z' },
});

function headers(id: string, timestampS: number, signature: string): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampS), 'webhook-signature': signature };
}

describe('signWebhook', () => {
  it('gives the Standard Webhooks test vector', () => {
    assert.equal(signWebhook([VECTOR.secret], VECTOR.id, VECTOR.timestampS, VECTOR.body), VECTOR.signature);
    const library = new Webhook(VECTOR.secret).sign(VECTOR.id, new Date(VECTOR.timestampS * 1000), VECTOR.body);
    assert.equal(library, VECTOR.signature);
  });

  it('signs a non-ASCII body as its UTF-8 bytes, as the standardwebhooks library verifies it', () => {
    const secret = newWebhookSecret();
    const id = newWebhookEventId();
    const now = Math.floor(Date.now() / 1000);
    const signature = signWebhook([secret], id, now, BODY);
    assert.deepEqual(new Webhook(secret).verify(BODY, headers(id, now, signature)), JSON.parse(BODY));
  });

  it('signs with both secrets while a rotation is live, and each secret alone verifies', () => {
    const oldSecret = newWebhookSecret();
    const newSecret = newWebhookSecret();
    const id = newWebhookEventId();
    const now = Math.floor(Date.now() / 1000);
    const signature = signWebhook([newSecret, oldSecret], id, now, BODY);

    const entries = signature.split(' ');
    assert.equal(entries.length, 2);
    for (const entry of entries) assert.match(entry, /^v1,[A-Za-z0-9+/]{43}=$/);
    for (const secret of [oldSecret, newSecret]) {
      assert.deepEqual(new Webhook(secret).verify(BODY, headers(id, now, signature)), JSON.parse(BODY));
    }
    assert.throws(() => new Webhook(newWebhookSecret()).verify(BODY, headers(id, now, signature)), {
      message: 'No matching signature found',
    });
  });

  it('refuses a malformed secret with a message that does not quote it', () => {
    for (const secret of ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_', 'whsec_not base64!', 'whsec_abc']) {
      assert.throws(
        () => signWebhook([newWebhookSecret(), secret], 'msg_1', 1, '{}'),
        (error: unknown) => {
          assert.ok(error instanceof TypeError);
          assert.equal(error.message, 'webhook secret 2 is not "whsec_" followed by base64');
          return true;
        },
      );
    }
  });

  it('refuses no secret at all and a timestamp that is not whole seconds', () => {
    assert.throws(() => signWebhook([], 'msg_1', 1, '{}'), TypeError);
    assert.throws(() => signWebhook([newWebhookSecret()], 'msg_1', Date.now() / 1000, '{}'), TypeError);
  });
});

describe('newWebhookSecret and newWebhookEventId', () => {
  it('makes whsec_ + the base64 of 32 random bytes, different every time', () => {
    const secrets = new Set(Array.from({ length: 100 }, () => newWebhookSecret()));
    assert.equal(secrets.size, 100);
    for (const secret of secrets) {
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
    }
  });

  it('makes msg_ + 32 hex digits (the form the stores make), different every time', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newWebhookEventId()));
    assert.equal(ids.size, 100);
    for (const id of ids) assert.match(id, /^msg_[0-9a-f]{32}$/);
  });
});
