import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type HostApiServer, hostCall, mealPath, startHostApiServer } from '../support/host-api.js';
import { startInProcessServer } from '../support/in-process-server.js';
import { getMeals, newUserId } from '../support/server.js';

// The failed-attempt rule of the public listener holds on the host API, per client address,
// with failures on either listener counted together; a valid token still passes. On a server
// of its own: the block is the whole address's.
let server: HostApiServer;

before(async () => {
  server = await startHostApiServer({}, startInProcessServer);
});

after(async () => {
  await server.stop();
});

test('after 20 failed attempts within 60 s an address gets 429 with Retry-After; a valid token still passes', async () => {
  const path = mealPath(newUserId('guard'), 'nothing');
  for (let i = 0; i < 10; i += 1) {
    assert.equal((await hostCall(server, { path, token: 'mxs_wrong' })).status, 401);
  }
  // Ten more on the public listener: one count for the address.
  for (let i = 0; i < 10; i += 1) {
    assert.equal((await getMeals(server, 'mxk_wrong', { lastModifiedSince: '2000-01-01T00:00:00Z' })).status, 401);
  }
  const blocked = await hostCall(server, { path, token: 'mxs_wrong' });
  assert.equal(blocked.status, 429, blocked.text);
  assert.equal((blocked.json as { error: { code: string } }).error.code, 'rate_limited');
  assert.match(String(blocked.headers['retry-after']), /^\d+$/);
  assert.equal((await hostCall(server, { path, token: null })).status, 429, 'no token: blocked too');
  assert.equal((await hostCall(server, { path })).status, 404, 'the valid token passes');
});
