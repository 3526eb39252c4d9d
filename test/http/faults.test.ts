import assert from 'node:assert/strict';
import https from 'node:https';
import { describe, test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { postgresSkipReason } from '../support/postgres.js';
import { redisSkipReason } from '../support/redis.js';
import { newScaleOutStore } from '../support/scale-out-store.js';
import {
  keyedGetOptions,
  makeMeal,
  newUserId,
  refused,
  request,
  type StartOptions,
  startTestServer,
} from '../support/server.js';
import { OLD, sleep } from './http-expect.js';

/**
 * Faults the service must ride out (docs/reliability.md#faults): SIGTERM with many large answers in
 * flight, on every store; slow clients that never finish their headers.
 */

interface PageResult {
  readonly status: number;
  readonly count: number;
  readonly items: number;
}

/** A GET of a large page on its own connection, read once `readFrom` resolves, to the end, and parsed. */
function fetchPage(
  server: { host: string; port: number },
  key: string,
  path: string,
  readFrom: Promise<void>,
  sent: () => void,
): Promise<PageResult> {
  return new Promise((resolve, reject) => {
    const req = https.request(keyedGetOptions(server, key, path), (res) => {
      res.pause();
      void readFrom.then(() => res.resume());
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('error', reject);
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { count: number; meals: unknown[] };
        resolve({ status: res.statusCode ?? 0, count: body.count, items: body.meals.length });
      });
    });
    req.on('error', reject);
    // Written on the TLS connection: the server process has accepted it and finished its handshake.
    req.on('finish', sent);
    req.end();
  });
}

async function sigtermWithLargeAnswers(options: StartOptions): Promise<void> {
  const server = await startTestServer(options);
  try {
    const userId = newUserId('drain');
    const { key } = await server.createKey(userId);
    await server.importMeals(
      userId,
      Array.from({ length: 5000 }, () => makeMeal()),
    );
    // The clients read nothing until SIGTERM has arrived: every answer is in flight then.
    let read = () => {};
    const readFrom = new Promise<void>((resolve) => {
      read = resolve;
    });
    let sent = 0;
    const pages = Array.from({ length: 100 }, () =>
      fetchPage(server, key, `/v1/meals?lastModifiedSince=${OLD}&limit=5000`, readFrom, () => {
        sent += 1;
      }),
    );
    const deadline = performance.now() + 60_000;
    while (sent < 100 && performance.now() < deadline) await sleep(100);
    // Their requests parsed (the large-page gate admits eight at once: the rest wait their turn).
    await sleep(500);
    assert.equal(sent, 100, 'every request was sent before SIGTERM');
    const started = performance.now();
    const exited = server.stop();
    await sleep(300);
    assert.equal(await refused(server.port), true, 'no new connection once SIGTERM arrived');
    read();
    const results = await Promise.all(pages);
    const code = await exited;
    const tookS = (performance.now() - started) / 1000;
    console.log(`SIGTERM with 100 answers of 5000 meals in flight: exit ${code} after ${tookS.toFixed(1)} s`);
    for (const [i, result] of results.entries()) {
      assert.deepEqual(result, { status: 200, count: 5000, items: 5000 }, `answer ${i + 1} of 100, in full`);
    }
    assert.equal(code, 0);
  } finally {
    await server.stop();
  }
}

describe('SIGTERM with 100 large answers in flight', () => {
  test('on SQLite every answer is sent in full, then the server exits 0', { timeout: 180_000 }, async () => {
    await sigtermWithLargeAnswers({});
  });

  test(
    'on PostgreSQL and Redis every answer is sent in full, then the server exits 0',
    { timeout: 180_000 },
    async (t) => {
      const skip = (await postgresSkipReason()) ?? (await redisSkipReason());
      if (skip !== undefined) {
        t.skip(skip);
        return;
      }
      const store = await newScaleOutStore('drain');
      try {
        await sigtermWithLargeAnswers({ db: store.db, redis: store.redis });
      } finally {
        await store.remove();
      }
    },
  );
});

test(
  '100 slowloris clients are each cut off at 10 s, and nobody else waits meanwhile',
  { timeout: 120_000 },
  async () => {
    const server = await startTestServer();
    try {
      const userId = newUserId('slow');
      const { key } = await server.createKey(userId);
      await server.importMeals(userId, [makeMeal()]);
      const started = performance.now();
      const cutAfterMs = Array.from(
        { length: 100 },
        () =>
          new Promise<number>((resolve) => {
            let trickle: NodeJS.Timeout | undefined;
            const socket = tlsConnect({ host: server.host, port: server.port, rejectUnauthorized: false }, () => {
              socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
              // One header byte a second: the headers never end.
              trickle = setInterval(() => socket.write('x'), 1_000);
            });
            socket.on('data', () => {});
            socket.on('error', () => {});
            socket.on('close', () => {
              clearInterval(trickle);
              resolve(performance.now() - started);
            });
            setTimeout(() => socket.destroy(), 40_000).unref();
          }),
      );
      const latencies: number[] = [];
      let cut = false;
      const allCut = Promise.all(cutAfterMs).finally(() => {
        cut = true;
      });
      while (!cut) {
        for (const path of ['/healthz', `/v1/meals?lastModifiedSince=${OLD}&limit=10`]) {
          const sent = performance.now();
          const res = await request(server, { path, key });
          latencies.push(performance.now() - sent);
          assert.equal(res.status, 200, path);
        }
        await sleep(200);
      }
      const cuts = await allCut;
      const worst = Math.max(...latencies);
      console.log(
        `100 slowloris clients: cut after ${(Math.min(...cuts) / 1000).toFixed(1)}-${(Math.max(...cuts) / 1000).toFixed(1)} s; ` +
          `others: worst ${worst.toFixed(0)} ms over ${latencies.length} requests`,
      );
      assert.ok(Math.min(...cuts) >= 9_000, `none before 10 s (first after ${Math.min(...cuts).toFixed(0)} ms)`);
      assert.ok(
        Math.max(...cuts) <= 14_000,
        `all within a few s of 10 s (last after ${Math.max(...cuts).toFixed(0)} ms)`,
      );
      assert.ok(worst < 2_000, `other clients answered within 2 s (worst ${worst.toFixed(0)} ms)`);
    } finally {
      await server.stop();
    }
  },
);
