import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { digestServiceToken, isWellFormedServiceToken } from '../../src/domain/service-token.js';
import { issueServiceToken } from '../../src/keys/issue-service-token.js';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { makeTempDir } from '../support/project.js';

const T0 = Date.UTC(2025, 5, 10, 12);

describe('issuing service tokens over a real SQLite store', () => {
  const temp = makeTempDir('issue-service-token');
  const file = path.join(temp.dir, 'store.db');
  let storage: Storage;

  before(async () => {
    storage = await openSqliteStorage(file);
  });

  after(async () => {
    await storage.close();
    temp.remove();
  });

  test('gives the token once and stores its digest, prefix and trimmed name, never the token', async () => {
    const issued = await issueServiceToken(storage.serviceTokens, '  billing back end ', T0);
    assert.ok(issued.ok);
    const { token, record } = issued;
    assert.ok(isWellFormedServiceToken(token), token);
    assert.deepEqual(record, {
      id: record.id,
      name: 'billing back end',
      prefix: token.slice(0, 12),
      createdAt: T0,
      lastUsedAt: null,
      revokedAt: null,
    });
    assert.match(record.id, /^svc_[0-9A-Za-z]{16}$/);
    assert.deepEqual(await storage.serviceTokens.findServiceTokenByDigest(digestServiceToken(token)), record);

    const db = new BetterSqlite3(file, { readonly: true });
    try {
      const rows = db.prepare('SELECT * FROM service_tokens').all();
      const stored = JSON.stringify(rows, (_key, value: unknown) =>
        Buffer.isBuffer(value) ? value.toString('latin1') : value,
      );
      assert.equal(stored.includes(token.slice(12)), false, 'no more of the token than its shown prefix is stored');
    } finally {
      db.close();
    }
  });

  test('each token and id is new', async () => {
    const a = await issueServiceToken(storage.serviceTokens, 'a', T0);
    const b = await issueServiceToken(storage.serviceTokens, 'a', T0);
    assert.ok(a.ok && b.ok);
    assert.notEqual(a.token, b.token);
    assert.notEqual(a.record.id, b.record.id);
  });

  test('refuses an empty, blank, too long or control-character name as a value, storing nothing', async () => {
    const before = (await storage.serviceTokens.listServiceTokens()).length;
    for (const name of ['', '   ', 'x'.repeat(101), 'line\nbreak', 'tab\there']) {
      const issued = await issueServiceToken(storage.serviceTokens, name, T0);
      assert.deepEqual(
        issued,
        { ok: false, reason: 'invalid_name', message: "a service token's name is 1 to 100 characters of text" },
        JSON.stringify(name),
      );
    }
    assert.equal((await storage.serviceTokens.listServiceTokens()).length, before);
    assert.ok((await issueServiceToken(storage.serviceTokens, ` ${'x'.repeat(100)} `, T0)).ok, '100 after trimming');
  });
});
