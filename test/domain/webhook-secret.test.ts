import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { webhookDigest } from '../../src/client/webhook-digest.js';
import { decodeWebhookSecret, encodeWebhookSecret } from '../../src/domain/webhook-secret.js';
import { newWebhookSecret } from '../../src/domain/webhook-ids.js';

// The Standard Webhooks JavaScript library's own vector (libraries/javascript/src/webhook.test.ts).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: '1614265330',
  body: '{"test": 2432232314}',
  digest: 'g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const MALFORMED = ['', 'whsec_', 'whsec_not base64!', 'whsec_abc', 'whsec_YWJj\n', 'whsec_YWJj=', 'whsec_YW-_'];

describe('the webhook secret codec', () => {
  it('decodes whsec_ + base64 to the key bytes, and encodes them back to the same text', () => {
    for (const secret of [VECTOR.secret, newWebhookSecret(), newWebhookSecret()]) {
      const key = decodeWebhookSecret(secret, 'refuse');
      assert.ok(key !== undefined);
      assert.deepEqual(Buffer.from(key), Buffer.from(secret.slice('whsec_'.length), 'base64'));
      assert.equal(encodeWebhookSecret(key), secret);
    }
  });

  it('encodes 32 random bytes in the form the service makes, even from a view into a larger buffer', () => {
    const bytes = randomBytes(40);
    const secret = encodeWebhookSecret(bytes.subarray(4, 36));
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const key = decodeWebhookSecret(secret, 'refuse');
    assert.ok(key !== undefined);
    assert.deepEqual(Buffer.from(key), bytes.subarray(4, 36));
  });

  it('takes bare base64 only when asked to, as a receiver may hold it', () => {
    const bare = VECTOR.secret.slice('whsec_'.length);
    assert.equal(decodeWebhookSecret(bare, 'refuse'), undefined);
    assert.deepEqual(decodeWebhookSecret(bare, 'accept'), decodeWebhookSecret(VECTOR.secret, 'refuse'));
  });

  it('refuses what is not strict padded base64 after the prefix, either way', () => {
    for (const secret of MALFORMED) {
      for (const unprefixed of ['refuse', 'accept'] as const) {
        assert.equal(decodeWebhookSecret(secret, unprefixed), undefined, `${JSON.stringify(secret)} (${unprefixed})`);
      }
    }
  });
});

describe('webhookDigest', () => {
  it('gives the Standard Webhooks test vector, for the body as text or as its UTF-8 bytes', () => {
    const key = decodeWebhookSecret(VECTOR.secret, 'refuse');
    assert.ok(key !== undefined);
    for (const body of [VECTOR.body, new TextEncoder().encode(VECTOR.body)]) {
      const digest = webhookDigest(key, VECTOR.id, VECTOR.timestamp, body);
      assert.equal(Buffer.from(digest).toString('base64'), VECTOR.digest);
    }
  });
});
