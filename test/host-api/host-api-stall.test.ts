import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect } from 'node:tls';
import { cliJson } from '../support/cli.js';
import { type HostApiServer, hostCall, hostRecord, mealPath, startHostApiServer } from '../support/host-api.js';
import { newUserId } from '../support/server.js';

// A body that stalls is cut as on the public listener (the whole request within 30 s), and an
// import cut half-way writes nothing and holds nothing: the next write goes through.
let server: HostApiServer;

before(async () => {
  server = await startHostApiServer();
});

after(async () => {
  await server.stop();
});

test('an import whose body stalls is cut within the 30 s of a request, writes nothing, and holds no lock', async () => {
  const userId = newUserId('stall');
  const line = `${JSON.stringify({ id: `${userId}-1`, ...hostRecord() })}\n`;
  const started = performance.now();
  const closedAfterMs = await new Promise<number>((resolve, reject) => {
    const socket = connect({ ...server.hostApi, rejectUnauthorized: false }, () => {
      socket.write(
        `POST /host/v1/users/${userId}/meals/import HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n` +
          `Content-Type: application/x-ndjson\r\nContent-Length: ${line.length * 3}\r\n\r\n${line}`,
      );
      // …and nothing more: the body stops a third of the way.
    });
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(performance.now() - started));
    setTimeout(() => reject(new Error('the stalled request was never cut')), 45_000).unref();
  });
  assert.ok(closedAfterMs >= 25_000 && closedAfterMs <= 35_000, `cut after ${Math.round(closedAfterMs)} ms`);
  assert.equal((await hostCall(server, { path: mealPath(userId, `${userId}-1`) })).status, 404, 'nothing written');
  const next = await hostCall(server, { method: 'PUT', path: mealPath(userId, `${userId}-2`), json: hostRecord() });
  assert.equal(next.status, 200, next.text);
});

test('a revoked service token is refused within 1 s', async () => {
  const made = await cliJson<{ id: string; token: string }>([
    'service-tokens',
    'create',
    '--name',
    'short-lived',
    '--db',
    server.db,
    '--json',
  ]);
  const path = mealPath(newUserId('revoked'), 'nothing');
  assert.equal((await hostCall(server, { path, token: made.token })).status, 404, 'the token works');
  await cliJson(['service-tokens', 'revoke', made.id, '--db', server.db, '--json']);
  const revokedAt = performance.now();
  let refused = await hostCall(server, { path, token: made.token });
  while (refused.status !== 401 && performance.now() - revokedAt < 1_000) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    refused = await hostCall(server, { path, token: made.token });
  }
  assert.equal(
    refused.status,
    401,
    `still accepted ${Math.round(performance.now() - revokedAt)} ms after the revocation`,
  );
  assert.equal((refused.json as { error: { code: string } }).error.code, 'invalid_token');
});
