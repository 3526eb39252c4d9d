import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, afterEach, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  createWebhookSender,
  isDelivered,
  type WebhookAttemptOutcome,
  type WebhookSender,
  type WebhookSenderOptions,
} from '../../src/webhooks/webhook-sender.js';
import { newWebhookEventId, newWebhookSecret } from '../../src/domain/webhook-ids.js';
import { freePort } from '../support/free-port.js';
import { type Answer, makeCertificate, type Receiver, startReceiver, type TestCertificate } from './receiver.js';

const USER_AGENT = 'meal-export-webhooks/0.1.0';
const BODY = JSON.stringify({
  type: 'meals.changed',
  timestamp: '2026-11-23T10:00:00.000Z',
  data: { userId: 'u_42', from: '2026-11-23T09:59:58.120Z', through: '2026-11-23T09:59:59.870Z' },
});

let certificate: TestCertificate;
const secrets = [newWebhookSecret(), newWebhookSecret()];
// Every outcome of the file, checked at the end for any trace of a secret.
const outcomes: WebhookAttemptOutcome[] = [];
const receivers: Receiver[] = [];
const senders: WebhookSender[] = [];

before(async () => {
  certificate = await makeCertificate();
});

afterEach(async () => {
  for (const sender of senders.splice(0)) sender.close();
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

after(() => {
  const text = JSON.stringify(outcomes);
  for (const secret of secrets) {
    assert.ok(!text.includes(secret) && !text.includes(secret.slice('whsec_'.length)), 'an outcome quotes a secret');
  }
});

async function receiver(answer: Answer = (response) => response.writeHead(204).end()): Promise<Receiver> {
  const started = await startReceiver(certificate, answer);
  receivers.push(started);
  return started;
}

function sender(options: Partial<WebhookSenderOptions> = {}): WebhookSender {
  const created = createWebhookSender({ allowPrivate: true, ca: certificate.cert, userAgent: USER_AGENT, ...options });
  senders.push(created);
  return created;
}

async function send(
  target: WebhookSender,
  url: string,
  callSecrets: readonly string[] = secrets.slice(0, 1),
): Promise<WebhookAttemptOutcome> {
  const outcome = await target.send({
    url,
    webhookId: newWebhookEventId(),
    timestampS: Math.floor(Date.now() / 1000),
    body: BODY,
    secrets: callSecrets,
  });
  outcomes.push(outcome);
  return outcome;
}

describe('a call that gets an answer', () => {
  it('POSTs the body with the contract headers and a signature the standardwebhooks library verifies; a 2xx delivers', async () => {
    const hook = await receiver();
    const outcome = await send(sender(), `${hook.url}?endpoint=1`);

    assert.equal(outcome.status, 204);
    assert.equal(outcome.error, null);
    assert.equal(isDelivered(outcome), true);
    assert.ok(outcome.ms >= 0 && outcome.ms < 5_000);
    assert.equal(hook.calls.length, 1);
    const [call] = hook.calls;
    assert.equal(call!.method, 'POST');
    assert.equal(call!.path, '/hook?endpoint=1');
    assert.equal(call!.body, BODY);
    assert.equal(call!.headers['content-type'], 'application/json');
    assert.equal(call!.headers['user-agent'], USER_AGENT);
    assert.match(String(call!.headers['webhook-id']), /^msg_[0-9a-f]{32}$/);
    assert.match(String(call!.headers['webhook-timestamp']), /^\d{10}$/);
    const verified = new Webhook(secrets[0]!).verify(call!.body, call!.headers as Record<string, string>);
    assert.deepEqual(verified, JSON.parse(BODY));
  });

  it('signs with both secrets while a rotation is live, and each secret alone verifies the call', async () => {
    const hook = await receiver();
    const outcome = await send(sender(), hook.url, secrets);

    assert.equal(isDelivered(outcome), true);
    const [call] = hook.calls;
    assert.equal(String(call!.headers['webhook-signature']).split(' ').length, 2);
    for (const secret of secrets) {
      assert.deepEqual(
        new Webhook(secret).verify(call!.body, call!.headers as Record<string, string>),
        JSON.parse(BODY),
      );
    }
  });

  it('returns a 500 or a 410 as its status, not delivered', async () => {
    for (const status of [500, 410]) {
      const hook = await receiver((response) => response.writeHead(status).end('{"error":"no"}'));
      const outcome = await send(sender(), hook.url);
      assert.deepEqual([outcome.status, outcome.error, isDelivered(outcome)], [status, null, false]);
    }
  });

  it('does not follow a 302: the status is the outcome and the receiver sees one request', async () => {
    const hook = await receiver((response) => response.writeHead(302, { location: '/elsewhere' }).end());
    const outcome = await send(sender(), hook.url);

    assert.deepEqual([outcome.status, outcome.error, isDelivered(outcome)], [302, null, false]);
    assert.equal(hook.calls.length, 1);
  });

  it('reads a 1 MB answer only up to 64 KiB and returns at once, without waiting for the rest', async () => {
    let receiverSawClose: Promise<unknown> = Promise.resolve();
    const hook = await receiver((response) => {
      receiverSawClose = once(response, 'close');
      response.writeHead(200, { 'content-type': 'text/plain' });
      // 1 MB written and the answer never ended: only a reader that stops at the cap returns.
      for (let i = 0; i < 64; i += 1) response.write(Buffer.alloc(16 * 1024, 'x'));
    });
    const outcome = await send(sender({ timeoutMs: 5_000 }), hook.url);

    assert.deepEqual([outcome.status, outcome.error, isDelivered(outcome)], [200, null, true]);
    assert.ok(outcome.ms < 2_000, `took ${outcome.ms} ms`);
    await receiverSawClose;
  });
});

describe('a call that gets no answer', () => {
  it('times out when the receiver never answers, after timeoutMs', async () => {
    const hook = await receiver(() => {});
    const outcome = await send(sender({ timeoutMs: 1_000 }), hook.url);

    assert.deepEqual([outcome.status, outcome.error], [null, 'timeout']);
    assert.ok(outcome.ms >= 950 && outcome.ms < 3_000, `took ${outcome.ms} ms`);
    assert.equal(hook.calls.length, 1);
  });

  it('fails with tls against a self-signed receiver when no ca is given', async () => {
    const hook = await receiver();
    const outcome = await send(sender({ ca: undefined }), hook.url);

    assert.deepEqual([outcome.status, outcome.error], [null, 'tls']);
    assert.equal(outcome.detail, 'DEPTH_ZERO_SELF_SIGNED_CERT');
    assert.equal(hook.calls.length, 0);
  });

  it('fails with tls when the trusted certificate does not name the host', async () => {
    const otherName = await makeCertificate([{ type: 'dns', value: 'other.example' }]);
    const hook = await startReceiver(otherName, (response) => response.writeHead(204).end());
    receivers.push(hook);
    const outcome = await send(sender({ ca: otherName.cert }), hook.url);

    assert.deepEqual([outcome.status, outcome.error, outcome.detail], [null, 'tls', 'ERR_TLS_CERT_ALTNAME_INVALID']);
    assert.equal(hook.calls.length, 0);
  });

  it('fails with connection when nothing listens', async () => {
    const outcome = await send(sender(), `https://127.0.0.1:${await freePort()}/hook`);
    assert.deepEqual([outcome.status, outcome.error, outcome.detail], [null, 'connection', 'ECONNREFUSED']);
  });

  it('is aborted by close(), and a call after close() is aborted at once', async () => {
    const hook = await receiver(() => {});
    const target = sender();
    const pending = send(target, hook.url);
    while (hook.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    target.close();
    const outcome = await pending;
    assert.deepEqual([outcome.status, outcome.error], [null, 'aborted']);
    assert.ok(outcome.ms < 2_000);
    assert.equal((await send(target, hook.url)).error, 'aborted');
  });

  it('refuses a URL that is not https:// without credentials, sending nothing', async () => {
    const hook = await receiver();
    for (const url of [
      hook.url.replace('https:', 'http:'),
      hook.url.replace('https://', 'https://user:pass@'),
      'not a url',
    ]) {
      const outcome = await send(sender(), url);
      assert.deepEqual([outcome.status, outcome.error], [null, 'invalid_url'], url);
    }
    assert.equal(hook.calls.length, 0);
  });

  it('rejects with a TypeError that does not quote it for a malformed secret, before sending', async () => {
    const hook = await receiver();
    const malformed = 'whsec_' + 'not base64!'.repeat(3);
    const call = { url: hook.url, webhookId: newWebhookEventId(), timestampS: 1, body: BODY, secrets: [malformed] };
    await assert.rejects(sender().send(call), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.ok(!error.message.includes('not base64!'));
      return true;
    });
    assert.equal(hook.calls.length, 0);
  });
});

describe('where a call may go', () => {
  it('refuses loopback without allowPrivate, as a literal in any form or by name, and sends nothing', async () => {
    const hook = await receiver();
    const strict = sender({ allowPrivate: false });
    for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]', '[::1]', '2130706433', '0x7f.1']) {
      const outcome = await send(strict, `https://${host}:${hook.port}/hook`);
      assert.deepEqual([outcome.status, outcome.error, outcome.detail], [null, 'refused_address', 'loopback'], host);
    }
    assert.equal(hook.calls.length, 0);
  });

  it('with allowPrivate and the ca goes through to loopback, by address and by name', async () => {
    const hook = await receiver();
    for (const host of ['127.0.0.1', 'localhost']) {
      const outcome = await send(sender({ allowPrivate: true }), `https://${host}:${hook.port}/hook`);
      assert.equal(isDelivered(outcome), true, host);
    }
    assert.equal(hook.calls.length, 2);
  });
});
