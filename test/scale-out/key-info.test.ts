import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertPage, OLD } from '../http/http-expect.js';
import { assertKeyInfo, type KeyInfoBody } from '../http/key-info-expect.js';
import { postgresSkipReason } from '../support/postgres.js';
import { redisSkipReason } from '../support/redis.js';
import { newScaleOutStore, type ScaleOutStore } from '../support/scale-out-store.js';
import { newUserId, request, startTestServer, type TestServer } from '../support/server.js';

// GET /v1/key is exact across instances (docs/api.md#your-key-and-its-limits): whichever
// instance or worker answers, it reads the one shared state, the one that decides /v1/meals.

const MEALS = `/v1/meals?lastModifiedSince=${OLD}`;

/**
 * Within an interval every answer says the same: the same count, and the same end of it, to
 * `spreadMs`: instances add their own clock's instant to the wait Redis reads on its clock (a few
 * ms); a worker counts the primary's wait from the primary's read, whatever the message's trip,
 * so workers agree to the rounding of a fractional wait (1 ms).
 */
function assertSameStanding(answers: readonly KeyInfoBody[], usedToday: number, spreadMs: number): number {
  const nexts = answers.map((body) => Date.parse(body.limits.nextAcceptedAt));
  for (const body of answers) assert.equal(body.limits.usedToday, usedToday);
  const spread = Math.max(...nexts) - Math.min(...nexts);
  assert.ok(
    spread <= spreadMs,
    `nextAcceptedAt differs by ${spread} ms: ${answers.map((b) => b.limits.nextAcceptedAt)}`,
  );
  return Math.max(...nexts);
}

async function keyInfoOn(servers: readonly TestServer[], key: string, times: number): Promise<KeyInfoBody[]> {
  const answers: KeyInfoBody[] = [];
  for (let i = 0; i < times; i += 1) {
    const server = servers[i % servers.length] as TestServer;
    answers.push(assertKeyInfo(await request(server, { path: '/v1/key', key }), `answer ${i}`));
  }
  return answers;
}

/** A /v1/meals on the first server, then /v1/key everywhere: one state, never counted, exact. */
async function checkOneState(
  servers: readonly TestServer[],
  key: string,
  ask: number,
  spreadMs: number,
): Promise<void> {
  // Accepted now: each answer's own time, so only the count is the same.
  for (const body of await keyInfoOn(servers, key, ask)) assert.equal(body.limits.usedToday, 0);
  const sent = Date.now();
  assertPage(await request(servers[0] as TestServer, { path: MEALS, key }));
  const next = assertSameStanding(await keyInfoOn(servers, key, ask), 1, spreadMs);
  assert.ok(next >= sent + 3000 - 50 && next <= Date.now() + 3000, 'the end of the interval of that acceptance');
  const other = servers[servers.length - 1] as TestServer;
  assert.equal((await request(other, { path: MEALS, key })).status, 429, 'the interval holds everywhere');
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now()) + 50));
  assertPage(await request(other, { path: MEALS, key }));
  assertSameStanding(await keyInfoOn(servers, key, ask), 2, spreadMs);
}

const scaleOutSkip = (await postgresSkipReason()) ?? (await redisSkipReason());

describe('GET /v1/key on two instances over PostgreSQL and Redis', { skip: scaleOutSkip ?? false }, () => {
  let store: ScaleOutStore;
  let servers: [TestServer, TestServer];

  before(async () => {
    store = await newScaleOutStore('keyinfo');
    const options = { db: store.db, redis: store.redis, minIntervalMs: 3000, dailyLimit: 1000 };
    servers = (await Promise.all([startTestServer(options), startTestServer(options)])) as [TestServer, TestServer];
  });

  after(async () => {
    await Promise.all((servers ?? []).map((server) => server.stop()));
    await store?.remove();
  });

  test('both instances report the one shared count and the same next acceptance, and count nothing', async () => {
    const { key } = await servers[0].createKey(newUserId('key-two'));
    await checkOneState(servers, key, 4, 50);
  });
});

describe('GET /v1/key with --workers 2', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ workers: 2, minIntervalMs: 3000, dailyLimit: 1000 });
  });

  after(async () => {
    await server?.stop();
  });

  test("every worker reports the primary's one count and the same next acceptance, and counts nothing", async () => {
    const { key } = await server.createKey(newUserId('key-workers'));
    // Each request on a connection of its own: the workers share them, so several reach both.
    await checkOneState([server], key, 8, 2);
  });
});
