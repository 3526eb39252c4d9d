import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateApiKey } from '../../src/domain/api-key.js';
import { runCli } from '../support/cli.js';
import { sampleSum, scrape } from '../support/metrics.js';
import { postgresSkipReason } from '../support/postgres.js';
import { redisSkipReason } from '../support/redis.js';
import { newScaleOutStore } from '../support/scale-out-store.js';
import { newUserId, request, startTestServer, type StartOptions, type TestServer } from '../support/server.js';
import { assertError, assertPage } from './http-expect.js';

// A blocked address is checked first: its made-up keys do not cost a store
// query each, while a valid key from it still passes at once (docs/api.md#limits). Shown on
// the embedded default and on PostgreSQL + Redis, by the storage call counts of /metrics.

const MEALS = '/v1/meals?lastModifiedSince=2025-01-01T00:00:00Z';
const FLOOD = 300;
const CONNECTIONS = 30;

/** How many key lookups (store calls) the server has made so far. */
async function keyLookups(server: TestServer): Promise<number> {
  const { text } = await scrape(server.adminUrl);
  return sampleSum(text, 'meal_export_storage_query_duration_seconds_count', { method: 'findApiKeysByDigests' });
}

interface Backend {
  readonly name: string;
  skip(): Promise<string | undefined>;
  /** The server's options, and what to remove after. */
  open(): Promise<{ options: StartOptions; remove(): Promise<void> }>;
}

const BACKENDS: readonly Backend[] = [
  {
    name: 'embedded (SQLite, in-process guard)',
    skip: async () => undefined,
    open: async () => ({ options: {}, remove: async () => undefined }),
  },
  {
    name: 'PostgreSQL + Redis',
    skip: async () => (await postgresSkipReason()) ?? (await redisSkipReason()),
    async open() {
      const store = await newScaleOutStore('blocked');
      return { options: { db: store.db, redis: store.redis }, remove: () => store.remove() };
    },
  },
];

for (const backend of BACKENDS) {
  const skip = await backend.skip();
  describe(`a blocked address, ${backend.name}`, { skip: skip ?? false }, () => {
    let server: TestServer;
    let remove: () => Promise<void>;

    before(async () => {
      const opened = await backend.open();
      remove = opened.remove;
      server = await startTestServer({ ...opened.options, adminPort: 0 });
    });

    after(async () => {
      await server?.stop();
      await remove?.();
    });

    test('gets 429 for made-up keys at a few store calls a second, not one each, while valid keys still pass', async () => {
      const userId = newUserId('blocked');
      const { key: keyBefore } = await server.createKey(userId);
      for (let i = 0; i < 20; i += 1) {
        assert.equal((await request(server, { path: MEALS, key: generateApiKey() })).status, 401);
      }
      assertError(await request(server, { path: MEALS, key: generateApiKey() }), 429, 'rate_limited');

      const lookupsBefore = await keyLookups(server);
      const started = performance.now();
      let sent = 0;
      const statuses = new Map<number, number>();
      const retryAfters = new Set<string>();
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (sent < FLOOD) {
            sent += 1;
            const res = await request(server, { path: MEALS, key: generateApiKey() });
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            retryAfters.add(String(res.headers['retry-after']));
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const lookups = (await keyLookups(server)) - lookupsBefore;
      assert.deepEqual([...statuses], [[429, FLOOD]], 'every made-up key from the blocked address is refused');
      for (const value of retryAfters) {
        assert.ok(/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 60, `Retry-After ${value}`);
      }
      // One paced batch every 50 ms at most, whatever the number of requests: 20 a second.
      assert.ok(lookups <= Math.ceil(seconds * 20) + 2, `${lookups} key lookups for ${FLOOD} requests in ${seconds} s`);
      assert.ok(lookups < FLOOD / 5, `${lookups} key lookups for ${FLOOD} requests`);
      console.log(
        `${backend.name}: ${FLOOD} made-up keys from a blocked address in ${seconds.toFixed(2)} s cost ${lookups} key lookups`,
      );

      // Valid keys still pass: one made before the block, one made during it, never used yet.
      assertPage(await request(server, { path: MEALS, key: keyBefore }), userId);
      const fresh = await server.createKey(userId);
      assertPage(await request(server, { path: MEALS, key: fresh.key }), userId);
      // And the block still holds for the rest.
      assertError(await request(server, { headers: {}, path: MEALS }), 429, 'rate_limited');
    });
  });
}

describe('the client address behind a proxy (serve --trust-proxy)', () => {
  const fail = (server: TestServer, forwardedFor: string) =>
    request(server, {
      path: MEALS,
      headers: { authorization: `Bearer ${generateApiKey()}`, 'x-forwarded-for': forwardedFor },
    });

  test('from a trusted proxy, each client it names is counted on its own, and a client cannot choose its name', async () => {
    const server = await startTestServer({ extraArgs: ['--trust-proxy', '127.0.0.1'] });
    try {
      for (let i = 0; i < 20; i += 1) assert.equal((await fail(server, '203.0.113.5')).status, 401);
      assertError(await fail(server, '203.0.113.5'), 429, 'rate_limited');
      // What a client writes to the left of the address the proxy appended is not believed.
      assertError(await fail(server, '198.51.100.77, 203.0.113.5'), 429, 'rate_limited');
      assertError(await fail(server, '2001:db8::1, 203.0.113.5'), 429, 'rate_limited');
      assert.equal((await fail(server, '203.0.113.6')).status, 401, 'another client behind the proxy is not blocked');
      assert.equal((await fail(server, '203.0.113.5, 203.0.113.6')).status, 401);
      assert.match(server.logs(), /"trustedProxies":\["127\.0\.0\.1"\]/);
    } finally {
      await server.stop();
    }
  });

  test('a --trust-proxy that is not addresses or networks is a usage error naming the entry', async () => {
    for (const value of ['localhost', '10.0.0.0/33', '']) {
      const run = await runCli(['serve', '--trust-proxy', value, '--port', '0', '--db', ':memory:']);
      assert.equal(run.code, 2, `--trust-proxy ${JSON.stringify(value)}: ${run.stderr}`);
      assert.match(run.stderr, /^meal-export: --trust-proxy: /);
    }
  });

  test('by default X-Forwarded-For is ignored: naming other addresses does not get around the guard', async () => {
    const server = await startTestServer();
    try {
      for (let i = 0; i < 20; i += 1) assert.equal((await fail(server, `203.0.113.${i}`)).status, 401);
      assertError(await fail(server, '203.0.113.99'), 429, 'rate_limited');
    } finally {
      await server.stop();
    }
  });
});
