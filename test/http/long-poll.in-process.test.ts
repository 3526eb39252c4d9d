import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { issueApiKey } from '../../src/keys/issue-api-key.js';
import type { ServeConfig } from '../../src/serve/serve-config.js';
import { startServer } from '../../src/server.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { plainMeal } from '../support/contract.js';
import { makeTempDir } from '../support/project.js';
import { request, type TestResponse } from '../support/server.js';
import { type MealPageBody, OLD, sleep } from './http-expect.js';

/**
 * A long poll woken by a write of the serving process itself (docs/api.md#changes-as-they-happen-wait): a back
 * end that runs the API in its own process (startServer's `storage` option) and writes meals
 * through the same store handle. The write signals as it commits, without waiting for the
 * next look for other processes' commits.
 */
test('a held request is answered within 250 ms of a write through the serving process’s own store', async () => {
  const temp = makeTempDir('in-process');
  const storage = await openStorage(path.join(temp.dir, 'store.db'), { serving: true });
  const config: ServeConfig = {
    database: 'unused: the store is given',
    host: '127.0.0.1',
    port: 0,
    dataDir: temp.dir,
    tlsCertFile: undefined,
    tlsKeyFile: undefined,
    insecureHttp: false,
    minIntervalMs: 0,
    dailyLimit: 1_000_000,
    tombstoneDays: 30,
    logLevel: 'silent',
    adminPort: undefined,
    workers: 1,
    redisUrl: undefined,
    redisPrefix: 'meal-export:',
    maxWaiting: 100,
    webhooks: { allowPrivate: false, caFile: undefined },
  };
  const server = await startServer(config, { storage });
  try {
    const issued = await issueApiKey(
      storage.keys,
      { userId: 'u_in', name: 'in-process', lifetimeMs: undefined },
      Date.now(),
    );
    assert.ok(issued.ok);
    const { port } = new URL(server.url);
    // Five rounds: each one waits past the previous answer's position.
    let since = OLD;
    for (let round = 0; round < 5; round += 1) {
      const started = performance.now();
      const held: Promise<{ response: TestResponse; at: number }> = request(
        { host: '127.0.0.1', port: Number(port) },
        { path: `/v1/meals?lastModifiedSince=${since}&wait=30`, key: issued.key },
      ).then((response) => ({ response, at: performance.now() }));
      await sleep(300);
      await storage.writes.upsertMeals('u_in', [plainMeal(`m${round}`)], Date.now());
      const wroteAt = performance.now();
      const { response, at } = await held;
      assert.equal(response.status, 200, response.text);
      const body = response.json as MealPageBody;
      assert.deepEqual(
        body.meals.map((m) => m.id),
        [`m${round}`],
      );
      assert.ok(at - started >= 250, 'held until the write');
      assert.ok(at - wroteAt <= 250, `answered ${Math.round(at - wroteAt)} ms after the write`);
      since = encodeURIComponent(new Date(Date.parse(body.meals[0]?.modifiedAt ?? OLD) + 1).toISOString());
    }
  } finally {
    await server.close();
    await storage.close();
    temp.remove();
  }
});
