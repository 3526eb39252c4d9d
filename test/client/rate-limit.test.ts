import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createMealExportClient, type WaitEvent } from '../../src/client/index.js';
import { CSV_HEADER } from '../../src/meals-io/csv-writer.js';
import { makeTempDir } from '../support/project.js';
import { getMeals, makeMeal, newUserId, type ServedApp } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { assertSameAsExport, pull, pullFiles } from './pull-harness.js';

// The contract's interval: one accepted request every 3 s per key. Each test meets one 429.
let server: ServedApp;
const temp = makeTempDir('pull-429');

before(async () => {
  server = await startInProcessServer({ minIntervalMs: 3000 });
});

after(async () => {
  await server.stop();
  temp.remove();
});

/** A user with meals, whose key has just been used: the next request within 3 s gets 429. */
async function userWithFreshlyUsedKey(count: number) {
  const userId = newUserId('rl');
  const { key } = await server.createKey(userId);
  await server.importMeals(
    userId,
    Array.from({ length: count }, () => makeMeal()),
  );
  const first = await getMeals(server, key, { lastModifiedSince: '2020-01-01' });
  assert.equal(first.status, 200);
  return { userId, key };
}

describe('429 rate_limited', { concurrency: true }, () => {
  test("the SDK waits a 429's Retry-After out and then gets the page", async () => {
    const { key } = await userWithFreshlyUsedKey(2);
    const waits: WaitEvent[] = [];
    const ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
    // minIntervalMs 0: the client does not pace itself, so the server's 429 is what it meets.
    const client = createMealExportClient({
      baseUrl: server.url,
      apiKey: key,
      ca,
      minIntervalMs: 0,
      onWait: (e) => waits.push(e),
    });
    const page = await client.listMeals({ lastModifiedSince: '2020-01-01' });
    client.close();
    assert.equal(page.count, 2);
    assert.equal(waits.length, 1);
    assert.equal(waits[0]?.reason, 'rate_limited');
    assert.ok((waits[0]?.ms ?? 0) >= 1000 && (waits[0]?.ms ?? 0) <= 3000, `${waits[0]?.ms} ms`);
  });

  test('pull waits a 429 out and ends with the whole copy', async () => {
    const { userId, key } = await userWithFreshlyUsedKey(3);
    const files = pullFiles(temp.dir, 'rl');
    // A copy saved an hour ago, still empty: the pull needs one request, which meets the 429.
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const state = { version: 1, url: server.url, userId, lastModifiedSince: since, cursor: null, followSince: null };
    writeFileSync(files.state, JSON.stringify(state));
    writeFileSync(files.out, CSV_HEADER);
    const started = Date.now();
    const summary = await pull(server, key, files);
    assert.ok(Date.now() - started >= 1000, 'it waited');
    assert.deepEqual(summary, { pages: 1, upserted: 3, deleted: 0, total: 3, verified: true });
    await assertSameAsExport(server, userId, files.out, 'csv');
  });

  test('an aborted long poll keeps the interval: the next request waits for it rather than meet a 429', async () => {
    // No meals: the poll is held until it is aborted, after the server has counted it.
    const { key } = await server.createKey(newUserId('rl-abort'));
    const waits: WaitEvent[] = [];
    const ca = readFileSync(path.join(server.dir, 'tls', 'cert.pem'), 'utf8');
    const client = createMealExportClient({ baseUrl: server.url, apiKey: key, ca, onWait: (e) => waits.push(e) });
    try {
      const held = new AbortController();
      const poll = client.listMeals({ lastModifiedSince: '2020-01-01', wait: 30, signal: held.signal });
      setTimeout(() => held.abort(), 500);
      await assert.rejects(poll);
      const page = await client.listMeals({ lastModifiedSince: '2020-01-01' });
      assert.equal(page.count, 0);
    } finally {
      client.close();
    }
    assert.deepEqual(
      waits.map((event) => event.reason),
      ['interval'],
      'the interval, waited by the client, and no 429',
    );
  });
});
