import assert from 'node:assert/strict';
import { test } from 'node:test';
import path from 'node:path';
import { registerWebhook } from '../../src/webhooks/webhook-endpoints.js';
import { webhookNameProblem, webhookUrlProblem } from '../../src/domain/webhook-endpoint.js';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import {
  isWebhookEndpointId,
  newWebhookEndpointId,
  newWebhookEventId,
  newWebhookEventIds,
  newWebhookSecret,
} from '../../src/domain/webhook-ids.js';
import { makeTempDir } from '../support/project.js';

test('accepts https:// URLs up to 2048 characters, with ports, paths, queries, IP literals and any case of scheme', () => {
  const base = 'https://hooks.example.com/';
  for (const url of [
    'https://hooks.example.com',
    'https://hooks.example.com:8443/meals?team=1#x',
    'HTTPS://Hooks.Example.com/',
    'https://[2001:db8::1]/hook',
    'https://192.0.2.10/hook',
    `${base}${'a'.repeat(2048 - base.length)}`,
  ]) {
    assert.equal(webhookUrlProblem(url), undefined, url);
  }
});

test('refuses other schemes, credentials, a missing host, spaces and control characters, and 2049 characters', () => {
  const base = 'https://hooks.example.com/';
  const refused: [string, RegExp][] = [
    ['http://hooks.example.com/', /start with https:\/\//],
    ['ws://hooks.example.com/', /start with https:\/\//],
    ['https:hooks.example.com', /start with https:\/\//],
    ['//hooks.example.com', /start with https:\/\//],
    ['', /start with https:\/\//],
    ['https://user:pass@hooks.example.com/', /user name or password/],
    ['https://user@hooks.example.com/', /user name or password/],
    ['https://@hooks.example.com/', /user name or password/],
    ['https:///hooks.example.com/', /name a host/],
    ['https://', /name a host/],
    ['https://hooks.example.com:99999/', /valid https:\/\/ URL/],
    [' https://hooks.example.com/', /start with https:\/\//],
    ['https://hooks.example.com/ ', /spaces or control characters/],
    ['https://hooks.exa\nmple.com/', /spaces or control characters/],
    ['https://hooks.example.com/\t', /spaces or control characters/],
    [`${base}${'a'.repeat(2049 - base.length)}`, /at most 2048 characters \(this one has 2049\)/],
  ];
  for (const [url, reason] of refused) assert.match(webhookUrlProblem(url) ?? 'accepted', reason, JSON.stringify(url));
});

test('a name is up to 100 characters of text', () => {
  assert.equal(webhookNameProblem(''), undefined);
  assert.equal(webhookNameProblem('x'.repeat(100)), undefined);
  assert.match(webhookNameProblem('x'.repeat(101)) ?? '', /at most 100/);
  assert.match(webhookNameProblem('a\u0000b') ?? '', /at most 100/);
});

test('ids and secrets have their fixed forms and never repeat', () => {
  const ids = new Set(Array.from({ length: 1000 }, newWebhookEndpointId));
  assert.equal(ids.size, 1000);
  for (const id of ids) assert.match(id, /^wh_[0-9A-Za-z]{22}$/);
  for (const id of ids) assert.ok(isWebhookEndpointId(id));
  for (const text of ['', 'wh_short', `${newWebhookEndpointId()}x`, `key_${'A'.repeat(22)}`, `wh_${'-'.repeat(22)}`]) {
    assert.ok(!isWebhookEndpointId(text), text);
  }
  const secret = newWebhookSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
  assert.notEqual(newWebhookSecret(), secret);
  assert.match(newWebhookEventId(), /^msg_[0-9a-f]{32}$/);
  // Made in a batch (a PostgreSQL commit takes one for each endpoint a user may have): each its own, all of one form.
  const batch = newWebhookEventIds(10);
  assert.equal(new Set(batch).size, 10);
  for (const id of batch) assert.match(id, /^msg_[0-9a-f]{32}$/);
});

test('an endpoint registered twice with the same chosen id is made once: the second is refused as duplicate_id', async () => {
  const temp = makeTempDir('webhook-endpoint');
  const storage = await openSqliteStorage(path.join(temp.dir, 'store.db'));
  try {
    const request = { id: newWebhookEndpointId(), userId: 'u_1', url: 'https://hooks.example.com/', name: '' };
    const first = await registerWebhook(storage.webhooks, request, Date.now());
    assert.equal(first.ok && first.endpoint.id, request.id);
    const second = await registerWebhook(storage.webhooks, request, Date.now());
    assert.equal(!second.ok && second.reason, 'duplicate_id');
    assert.equal((await storage.webhooks.listWebhooks('u_1')).length, 1);
  } finally {
    await storage.close();
    temp.remove();
  }
});
