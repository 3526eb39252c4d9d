import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  MealExportError,
  MealExportWebhookVerificationError,
  verifyWebhook,
  type WebhookEvent,
} from '../../src/client/index.js';
import { createWebhookSender, isDelivered } from '../../src/webhooks/webhook-sender.js';
import { newWebhookEventId, newWebhookSecret } from '../../src/domain/webhook-ids.js';
import { makeCertificate, type Receiver, startReceiver } from './receiver.js';

// The Standard Webhooks JavaScript library's own vector (libraries/javascript/src/webhook.test.ts).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestampS: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const EVENT = {
  type: 'meals.changed',
  timestamp: '2026-11-23T10:00:00.000Z',
  data: { userId: 'u_42', from: '2026-11-23T09:59:58.120Z', through: '2026-11-23T09:59:59.870Z' },
} as const;
const BODY = JSON.stringify(EVENT);
const NOW_S = 1_795_000_000;
const NOW = new Date(NOW_S * 1000);

const secret = newWebhookSecret();
// Every verification error of the file, checked at the end for any trace of a secret.
const messages: string[] = [];

after(() => {
  for (const message of messages) assert.ok(!message.includes(secret.slice('whsec_'.length)), message);
});

/** A call as the standardwebhooks library signs it: the reference, not our own signer. */
function signed(options: { secrets?: readonly string[]; id?: string; timestampS?: number; body?: string } = {}): {
  headers: Record<string, string>;
  body: string;
} {
  const id = options.id ?? 'msg_1';
  const timestampS = options.timestampS ?? NOW_S;
  const body = options.body ?? BODY;
  const signature = (options.secrets ?? [secret])
    .map((each) => new Webhook(each).sign(id, new Date(timestampS * 1000), body))
    .join(' ');
  return {
    headers: { 'webhook-id': id, 'webhook-timestamp': String(timestampS), 'webhook-signature': signature },
    body,
  };
}

function refusal(fn: () => unknown, check: string, message: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof MealExportWebhookVerificationError);
    assert.ok(error instanceof MealExportError);
    assert.equal(error.check, check);
    assert.match(error.message, message);
    messages.push(error.message);
    return true;
  });
}

describe('verifyWebhook accepts', () => {
  it('a call the standardwebhooks library signed, and returns the typed event', () => {
    const call = signed();
    const event: WebhookEvent = verifyWebhook(secret, call.headers, call.body, { now: NOW });
    assert.deepEqual(event, EVENT);
    assert.equal(event.type === 'meals.changed' ? event.data.through : null, EVENT.data.through);
  });

  it('the Standard Webhooks test vector, with and without the whsec_ prefix', () => {
    const headers = {
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestampS),
      'webhook-signature': VECTOR.signature,
    };
    const now = VECTOR.timestampS * 1000;
    for (const key of [VECTOR.secret, VECTOR.secret.slice('whsec_'.length)]) {
      assert.deepEqual(verifyWebhook(key, headers, VECTOR.body, { now }), { test: 2432232314 });
    }
  });

  it('either secret of a rotation, each alone, and ignores other versions and malformed entries', () => {
    const next = newWebhookSecret();
    const call = signed({ secrets: [next, secret] });
    for (const key of [secret, next])
      assert.deepEqual(verifyWebhook(key, call.headers, call.body, { now: NOW }), EVENT);
    refusal(() => verifyWebhook(newWebhookSecret(), call.headers, call.body, { now: NOW }), 'signature', /matches/);

    const valid = signed().headers['webhook-signature']!;
    const noisy = ['v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=', valid.replace('v1,', 'v2,'), 'v1', valid];
    const headers = { ...call.headers, 'webhook-signature': noisy.join(' ') };
    assert.deepEqual(verifyWebhook(secret, headers, call.body, { now: NOW }), EVENT);
  });

  it('headers as a fetch Headers, as a record in any case, with the body as a Buffer or a Uint8Array', () => {
    const call = signed();
    assert.deepEqual(verifyWebhook(secret, new Headers(call.headers), Buffer.from(call.body), { now: NOW }), EVENT);
    // A view into a larger buffer, as a web framework's body parser may hand it over.
    const padded = new TextEncoder().encode(`xx${call.body}yy`);
    const view = padded.subarray(2, padded.length - 2);
    assert.deepEqual(verifyWebhook(secret, call.headers, view, { now: NOW }), EVENT);
    const shouting = Object.fromEntries(
      Object.entries(call.headers).map(([name, value]) => [name.toUpperCase(), value]),
    );
    assert.deepEqual(verifyWebhook(secret, shouting, call.body, { now: NOW }), EVENT);
    const asArrays = Object.fromEntries(Object.entries(call.headers).map(([name, value]) => [name, [value]]));
    assert.deepEqual(verifyWebhook(secret, asArrays, call.body, { now: NOW }), EVENT);
  });

  it('a timestamp at the edge of the tolerance, 300 s by default or as given', () => {
    for (const offset of [-300, 300]) {
      const call = signed({ timestampS: NOW_S + offset });
      assert.deepEqual(verifyWebhook(secret, call.headers, call.body, { now: NOW }), EVENT);
    }
    const call = signed({ timestampS: NOW_S - 3600 });
    assert.deepEqual(verifyWebhook(secret, call.headers, call.body, { now: NOW, toleranceS: 3600 }), EVENT);
  });
});

describe('verifyWebhook refuses', () => {
  it('a changed body, id or timestamp, and a wrong secret, as a signature failure', () => {
    const call = signed();
    refusal(
      () => verifyWebhook(secret, call.headers, call.body.replace('u_42', 'u_43'), { now: NOW }),
      'signature',
      /no v1 signature/,
    );
    refusal(
      () => verifyWebhook(secret, { ...call.headers, 'webhook-id': 'msg_2' }, call.body, { now: NOW }),
      'signature',
      /matches/,
    );
    const later = { ...call.headers, 'webhook-timestamp': String(NOW_S + 1) };
    refusal(() => verifyWebhook(secret, later, call.body, { now: NOW }), 'signature', /matches/);
    refusal(() => verifyWebhook(newWebhookSecret(), call.headers, call.body, { now: NOW }), 'signature', /matches/);
  });

  it('a truncated or empty signature', () => {
    const call = signed();
    const full = call.headers['webhook-signature']!;
    for (const signature of [full.slice(0, 8), full.slice(0, -4), 'v1,', 'v1']) {
      refusal(
        () => verifyWebhook(secret, { ...call.headers, 'webhook-signature': signature }, call.body, { now: NOW }),
        'signature',
        /matches/,
      );
    }
  });

  it('a call older or newer than the tolerance, even with a good signature', () => {
    const old = signed({ timestampS: NOW_S - 301 });
    refusal(
      () => verifyWebhook(secret, old.headers, old.body, { now: NOW }),
      'timestamp',
      /^Webhook verification failed \(timestamp\): the call is 301 s old, more than 300 s$/,
    );
    const ahead = signed({ timestampS: NOW_S + 301 });
    refusal(() => verifyWebhook(secret, ahead.headers, ahead.body, { now: NOW }), 'timestamp', /dated 301 s ahead/);
    // Without `now`, the clock: a call signed in February 2021 is far too old.
    const y2021 = signed({ timestampS: VECTOR.timestampS });
    refusal(() => verifyWebhook(secret, y2021.headers, y2021.body), 'timestamp', /s old, more than 300 s/);
  });

  it('a timestamp that is not Unix seconds', () => {
    const call = signed();
    for (const timestamp of ['hello', '1795000000.5', '-1', '1e9', ' 1795000000']) {
      refusal(
        () => verifyWebhook(secret, { ...call.headers, 'webhook-timestamp': timestamp }, call.body, { now: NOW }),
        'timestamp',
        /not Unix seconds/,
      );
    }
  });

  it('a call missing any of the three headers, or with one repeated', () => {
    const call = signed();
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const without = { ...call.headers };
      delete without[name];
      refusal(
        () => verifyWebhook(secret, without, call.body, { now: NOW }),
        'headers',
        new RegExp(`the ${name} header is missing`),
      );
      const empty = new Headers({ ...call.headers, [name]: '' });
      refusal(() => verifyWebhook(secret, empty, call.body, { now: NOW }), 'headers', /empty|missing/);
    }
    const repeated = { ...call.headers, 'webhook-id': ['msg_1', 'msg_2'] };
    refusal(() => verifyWebhook(secret, repeated, call.body, { now: NOW }), 'headers', /webhook-id header is repeated/);
  });

  it('a well-signed body that is not a JSON object', () => {
    for (const body of ['not json', '[1,2]', 'null']) {
      const call = signed({ body });
      refusal(
        () => verifyWebhook(secret, call.headers, call.body, { now: NOW }),
        'payload',
        /not a JSON object|not JSON/,
      );
    }
  });

  it('a malformed secret with a TypeError that does not quote it', () => {
    const call = signed();
    for (const bad of ['', 'whsec_', 'whsec_not base64!', 'whsec_abc']) {
      assert.throws(
        () => verifyWebhook(bad, call.headers, call.body, { now: NOW }),
        (error: unknown) => error instanceof TypeError && (bad.length < 7 || !error.message.includes(bad.slice(6))),
      );
    }
  });
});

describe('the sender and verifyWebhook together', () => {
  it('a receiver that verifies with verifyWebhook answers 204 to the sender, and 400 to a call signed with another secret', async () => {
    const certificate = await makeCertificate();
    const receiver: Receiver = await startReceiver(certificate, (response, call) => {
      try {
        verifyWebhook(secret, call.headers, call.body);
        response.writeHead(204).end();
      } catch (error) {
        response.writeHead(error instanceof MealExportWebhookVerificationError ? 400 : 500).end();
      }
    });
    const sender = createWebhookSender({ allowPrivate: true, ca: certificate.cert, userAgent: 'test' });
    try {
      const call = {
        url: receiver.url,
        webhookId: newWebhookEventId(),
        timestampS: Math.floor(Date.now() / 1000),
        body: BODY,
      };
      assert.equal(isDelivered(await sender.send({ ...call, secrets: [newWebhookSecret(), secret] })), true);
      assert.equal((await sender.send({ ...call, secrets: [newWebhookSecret()] })).status, 400);
    } finally {
      sender.close();
      await receiver.close();
    }
  });
});
