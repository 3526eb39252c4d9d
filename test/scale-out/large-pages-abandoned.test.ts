import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { userWithLargePage } from '../support/answer-in-flight.js';
import { postgresSkipReason } from '../support/postgres.js';
import { redisSkipReason } from '../support/redis.js';
import { newScaleOutStore, type ScaleOutStore } from '../support/scale-out-store.js';
import { request, startTestServer, type TestServer } from '../support/server.js';

const PAGE = '/v1/meals?lastModifiedSince=2025-01-01T00:00:00Z&limit=5000';

/** Sends a GET of the page and leaves `afterMs` later, whatever has come back by then. */
async function leaveAfter(server: TestServer, key: string, afterMs: number): Promise<void> {
  const socket = tls.connect({ host: server.host, port: server.port, rejectUnauthorized: false });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
  socket.write(`GET ${PAGE} HTTP/1.1\r\nHost: ${server.host}\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  await sleep(afterMs);
  socket.destroy();
}

const scaleOutSkip = (await postgresSkipReason()) ?? (await redisSkipReason());

// Pages above 1000 meals share a budget of 40 000 meals in flight (docs/capacity.md#service-instances).
// On PostgreSQL a page is read asynchronously, so its client can leave while it is read: the page
// must give its share back then too, or eight such pages would stop every first sync for 30 s.
describe('pages of 5000 whose clients leave while PostgreSQL reads them', { skip: scaleOutSkip ?? false }, () => {
  let store: ScaleOutStore;
  let server: TestServer;

  before(async () => {
    store = await newScaleOutStore('abandoned');
    server = await startTestServer({ db: store.db, redis: store.redis });
  });

  after(async () => {
    await server?.stop();
    await store?.remove();
  });

  test('give their share back at once: the next page of 5000 is answered, not held for 30 s', async () => {
    const { key } = await userWithLargePage(server, 20);
    // Eight at a time fill the budget; leaving at different moments catches some while read.
    for (const afterMs of [2, 5, 10, 20, 40, 80]) {
      await Promise.all(Array.from({ length: 8 }, () => leaveAfter(server, key, afterMs)));
    }
    const started = Date.now();
    const answer = await request(server, { path: PAGE, key });
    const tookMs = Date.now() - started;
    assert.equal(answer.status, 200);
    assert.equal((answer.json as { count: number }).count, 5000);
    assert.ok(tookMs < 10_000, `the page waited ${tookMs} ms for shares of pages nobody reads`);
  });
});
