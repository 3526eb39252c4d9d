import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { type CliResult, runCli } from '../support/cli.js';
import { makeTempDir } from '../support/project.js';
import { retryAt } from '../support/store-fixtures.js';

// docs/cli.md#webhooks: the --json shapes written out here, independently of src/.
const CREATED_FIELDS = ['id', 'userId', 'url', 'name', 'secret', 'createdAt'];
const LISTED_FIELDS = ['id', 'url', 'name', 'status', 'createdAt', 'lastAttemptAt', 'lastStatus'];
const ATTEMPT_FIELDS = ['at', 'eventId', 'status', 'error', 'ms'];
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SECRET_RE = /^whsec_[A-Za-z0-9+/]{43}=$/;

interface Created {
  readonly id: string;
  readonly userId: string;
  readonly url: string;
  readonly name: string;
  readonly secret: string;
  readonly createdAt: string;
}

const temp = makeTempDir('webhooks-cli');
const db = path.join(temp.dir, 'store.db');
let users = 0;
after(() => temp.remove());

const newUser = () => `u_hooks_${(users += 1)}`;
const webhooks = (...args: string[]) => runCli(['webhooks', ...args, '--db', db]);

/** A run that must fail: non-zero, one line on stderr, nothing on stdout. */
function assertRefused(run: CliResult, message: RegExp): void {
  assert.notEqual(run.code, 0, run.stdout);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /^meal-export: [^\n]+\n$/);
  assert.match(run.stderr, message);
}

async function create(userId: string, url: string, ...extra: string[]): Promise<Created> {
  const run = await webhooks('create', '--user', userId, '--url', url, '--json', ...extra);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as Created;
}

async function listed(userId: string): Promise<Record<string, unknown>[]> {
  const run = await webhooks('list', '--user', userId, '--json');
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as Record<string, unknown>[];
}

async function withStore(work: (storage: Storage) => Promise<void>): Promise<void> {
  const storage = await openStorage(db);
  try {
    await work(storage);
  } finally {
    await storage.close();
  }
}

describe('meal-export webhooks', () => {
  test('create prints exactly {"id","userId","url","name","secret","createdAt"}, the secret once', async () => {
    const user = newUser();
    const started = Date.now();
    const created = await create(user, 'https://hooks.example.com/meals?team=1', '--name', 'shop');
    assert.deepEqual(Object.keys(created), CREATED_FIELDS);
    assert.match(created.id, /^wh_[0-9A-Za-z]{22}$/);
    assert.equal(created.userId, user);
    assert.equal(created.url, 'https://hooks.example.com/meals?team=1');
    assert.equal(created.name, 'shop');
    assert.match(created.secret, SECRET_RE);
    assert.equal(Buffer.from(created.secret.slice('whsec_'.length), 'base64').length, 32);
    assert.match(created.createdAt, ISO_RE);
    assert.ok(Date.parse(created.createdAt) >= started - 5);

    const words = await webhooks('create', '--user', user, '--url', 'https://hooks.example.com/2');
    assert.equal(words.code, 0, words.stderr);
    assert.match(
      words.stdout,
      /^whsec_\S+\n\nwebhook wh_\S+ for user u_hooks_\d+ calls https:\/\/hooks\.example\.com\/2\./,
    );
  });

  test('list prints every endpoint as {"id","url","name","status","createdAt","lastAttemptAt","lastStatus"}, never a secret', async () => {
    const user = newUser();
    const first = await create(user, 'https://a.example.com/hook');
    const second = await create(user, 'https://b.example.com/hook', '--name', 'backup');
    const endpoints = await listed(user);
    assert.deepEqual(endpoints, [
      {
        id: first.id,
        url: first.url,
        name: '',
        status: 'enabled',
        createdAt: first.createdAt,
        lastAttemptAt: null,
        lastStatus: null,
      },
      {
        id: second.id,
        url: second.url,
        name: 'backup',
        status: 'enabled',
        createdAt: second.createdAt,
        lastAttemptAt: null,
        lastStatus: null,
      },
    ]);
    for (const endpoint of endpoints) assert.deepEqual(Object.keys(endpoint), LISTED_FIELDS);
    const json = await webhooks('list', '--user', user, '--json');
    const words = await webhooks('list', '--user', user);
    for (const output of [json.stdout, words.stdout]) {
      assert.ok(!output.includes(first.secret) && !output.includes(second.secret), output);
      assert.ok(!output.includes('whsec_'), output);
    }
    assert.deepEqual(await listed(newUser()), []);
  });

  test('refuses a URL that is not https://, holds a user or password, or is over 2048 characters, storing nothing', async () => {
    const user = newUser();
    const base = 'https://hooks.example.com/';
    const refused: [string, RegExp][] = [
      ['http://hooks.example.com/', /https:\/\//],
      ['HTTP://hooks.example.com/', /https:\/\//],
      ['ftp://hooks.example.com/', /https:\/\//],
      ['hooks.example.com/meals', /https:\/\//],
      ['https://user:pass@hooks.example.com/', /user name or password/],
      ['https://user@hooks.example.com/', /user name or password/],
      ['https://:pass@hooks.example.com/', /user name or password/],
      ['https://hooks.example.com/a b', /spaces or control characters/],
      [`${base}${'a'.repeat(2049 - base.length)}`, /at most 2048 characters/],
    ];
    for (const [url, message] of refused) {
      assertRefused(await webhooks('create', '--user', user, '--url', url, '--json'), message);
    }
    assert.deepEqual(await listed(user), []);
    // 2048 characters exactly is accepted.
    const longest = `${base}${'a'.repeat(2048 - base.length)}`;
    assert.equal((await create(user, longest)).url, longest);
  });

  test('refuses a host that is an IP literal of a range never called, naming the range; loopback and private pass', async () => {
    const user = newUser();
    const refused: [string, string][] = [
      ['https://169.254.169.254/latest/meta-data', 'link-local'],
      ['https://[::ffff:169.254.169.254]/x', 'link-local'],
      ['https://[fe80::1]/x', 'link-local'],
      ['https://224.0.0.1/x', 'multicast'],
      ['https://0.0.0.0/x', 'unspecified'],
      ['https://100.64.0.1/x', 'shared'],
      ['https://192.0.2.1/x', 'reserved'],
    ];
    for (const [url, range] of refused) {
      assertRefused(await webhooks('create', '--user', user, '--url', url), new RegExp(`a ${range} address`));
    }
    assert.deepEqual(await listed(user), []);
    // `serve --webhook-allow-private` may call these, so registration leaves them to the sender.
    await create(user, 'https://127.0.0.1:8443/hook');
    await create(user, 'https://[::ffff:192.168.1.10]/hook');
  });

  test('refuses a 6th endpoint of a user with one line, and the others are untouched', async () => {
    const user = newUser();
    for (let i = 0; i < 5; i += 1) await create(user, `https://hooks.example.com/${i}`);
    assertRefused(
      await webhooks('create', '--user', user, '--url', 'https://hooks.example.com/6', '--json'),
      /already has 5 webhook endpoints/,
    );
    assert.equal((await listed(user)).length, 5);
    await create(newUser(), 'https://hooks.example.com/other-user');
  });

  test('rotate-secret prints exactly {"id","secret"}, a new secret; the previous one keeps signing for 24 hours', async () => {
    const user = newUser();
    const created = await create(user, 'https://hooks.example.com/rotate');
    const started = Date.now();
    const run = await webhooks('rotate-secret', created.id, '--json');
    assert.equal(run.code, 0, run.stderr);
    const rotated = JSON.parse(run.stdout) as { id: string; secret: string };
    assert.deepEqual(Object.keys(rotated), ['id', 'secret']);
    assert.equal(rotated.id, created.id);
    assert.match(rotated.secret, SECRET_RE);
    assert.notEqual(rotated.secret, created.secret);
    await withStore(async (storage) => {
      const record = await storage.webhooks.findWebhook(created.id);
      assert.equal(record?.secret, rotated.secret);
      assert.equal(record?.previousSecret, created.secret);
      const lifetime = (record?.previousSecretExpiresAt ?? 0) - started;
      assert.ok(lifetime > 86_400_000 - 60_000 && lifetime <= 86_400_000 + 60_000, `${lifetime} ms`);
    });
    const list = await webhooks('list', '--user', user, '--json');
    assert.ok(!list.stdout.includes(rotated.secret));
  });

  test('test prints exactly {"id","eventId"} and queues a webhook.test call with that id', async () => {
    const created = await create(newUser(), 'https://hooks.example.com/test');
    const run = await webhooks('test', created.id, '--json');
    assert.equal(run.code, 0, run.stderr);
    const queued = JSON.parse(run.stdout) as { id: string; eventId: string };
    assert.deepEqual(Object.keys(queued), ['id', 'eventId']);
    assert.equal(queued.id, created.id);
    assert.match(queued.eventId, /^msg_[0-9a-f]{32}$/);
    await withStore(async (storage) => {
      const events = await storage.webhooks.claimDueWebhookEvents(Date.now() + 1000, 60_000, 100);
      const event = events.find((e) => e.endpointId === created.id);
      assert.equal(event?.eventId, queued.eventId);
      assert.equal(event?.type, 'webhook.test');
    });
  });

  test('list and attempts name an attempt’s outcome in the same words: HTTP 500, refused_address', async () => {
    const user = newUser();
    const created = await create(user, 'https://hooks.example.com/words');
    await withStore(async (storage) => {
      await storage.webhooks.queueWebhookTest(created.id, 'msg_words', Date.now());
      const claimed = await storage.webhooks.claimDueWebhookEvents(Date.now() + 1000, 60_000, 100);
      const event = claimed.find((e) => e.endpointId === created.id);
      assert.ok(event !== undefined);
      const at = Date.UTC(2026, 1, 1);
      const tries = [
        { status: 500, error: null },
        { status: null, error: 'refused_address' },
      ];
      for (const [i, t] of tries.entries())
        await storage.webhooks.recordWebhookAttempt(
          event,
          { ...t, endpointId: created.id, eventId: event.eventId, at: at + i, ms: 5 },
          retryAt(at),
        );
    });
    const list = await webhooks('list', '--user', user);
    const attempts = await webhooks('attempts', created.id);
    assert.match(list.stdout, /last attempt \S+ \(refused_address\)/);
    assert.match(
      attempts.stdout,
      /^\S+ {2}msg_words {2}refused_address {2}5 ms\n\S+ {2}msg_words {2}HTTP 500 {2}5 ms\n$/,
    );
  });

  test('attempts prints the last 50 attempts newest first as {"at","eventId","status","error","ms"}; enable and delete', async () => {
    const user = newUser();
    const created = await create(user, 'https://hooks.example.com/attempts');
    const empty = await webhooks('attempts', created.id, '--json');
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stdout, '[]\n');

    const imported = await runCli(['meals', 'import', '--user', user, '-', '--format', 'jsonl', '--db', db, '--json'], {
      input: '{"id":"m1","title":"soup","type":"lunch","date":"2025-03-01T12:00:00Z"}\n',
    });
    assert.equal(imported.code, 0, imported.stderr);
    const T = Date.UTC(2026, 0, 1);
    let eventId = '';
    await withStore(async (storage) => {
      const [event] = (await storage.webhooks.claimDueWebhookEvents(Date.now() + 1000, 60_000, 100)).filter(
        (e) => e.endpointId === created.id,
      );
      assert.ok(event !== undefined, 'the import queued an event');
      assert.equal(event.type, 'meals.changed');
      eventId = event.eventId;
      for (let i = 0; i < 52; i += 1) {
        const failed = { endpointId: created.id, eventId, at: T + i * 1000, status: 500, error: null, ms: 40 + i };
        await storage.webhooks.recordWebhookAttempt(event, failed, retryAt(T));
      }
      const refused = { endpointId: created.id, eventId, at: T + 60_000, status: null, error: 'timeout', ms: 10_000 };
      await storage.webhooks.recordWebhookAttempt(event, refused, { kind: 'disable' });
    });

    const run = await webhooks('attempts', created.id, '--json');
    assert.equal(run.code, 0, run.stderr);
    const attempts = JSON.parse(run.stdout) as Record<string, unknown>[];
    assert.equal(attempts.length, 50);
    for (const attempt of attempts) assert.deepEqual(Object.keys(attempt), ATTEMPT_FIELDS);
    assert.deepEqual(attempts[0], {
      at: new Date(T + 60_000).toISOString(),
      eventId,
      status: null,
      error: 'timeout',
      ms: 10_000,
    });
    assert.deepEqual(attempts[1], {
      at: new Date(T + 51_000).toISOString(),
      eventId,
      status: 500,
      error: null,
      ms: 91,
    });
    assert.equal(attempts[49]?.at, new Date(T + 3_000).toISOString());

    const [disabled] = await listed(user);
    assert.equal(disabled?.status, 'disabled');
    assert.equal(disabled?.lastAttemptAt, new Date(T + 60_000).toISOString());
    assert.equal(disabled?.lastStatus, null);

    const enable = await webhooks('enable', created.id, '--json');
    assert.equal(enable.code, 0, enable.stderr);
    assert.deepEqual(JSON.parse(enable.stdout), { id: created.id, enabled: true });
    assert.equal((await listed(user))[0]?.status, 'enabled');

    const removed = await webhooks('delete', created.id, '--json');
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(JSON.parse(removed.stdout), { id: created.id, deleted: true });
    assert.deepEqual(await listed(user), []);
  });

  test('every command on an unknown id fails with one line; a missing --user or --url is a usage error', async () => {
    for (const sub of ['delete', 'enable', 'rotate-secret', 'test', 'attempts']) {
      const run = await webhooks(sub, 'wh_unknown', '--json');
      assertRefused(run, /no webhook with id wh_unknown/);
      assert.equal(run.code, 1);
    }
    const noUrl = await webhooks('create', '--user', newUser(), '--json');
    assertRefused(noUrl, /missing --url/);
    assert.equal(noUrl.code, 2);
    assertRefused(await webhooks('list', '--json'), /missing --user/);
    assertRefused(await webhooks('frobnicate'), /expected create, list/);
  });
});
