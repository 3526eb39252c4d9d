import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect } from 'node:tls';
import { cliJson } from '../support/cli.js';
import { type HostApiServer, hostCall, hostRecord, mealPath, startHostApiServer } from '../support/host-api.js';
import { newUserId } from '../support/server.js';

// A body that stalls is answered 408 at the request bound (30 s), logged and counted; an
// import waits for its body without holding the store, so writes beside it go through at once;
// an import cut half-way writes nothing and holds nothing.
let server: HostApiServer;

before(async () => {
  server = await startHostApiServer({ adminPort: 0 });
});

after(async () => {
  await server.stop();
});

/** Sends the head of a request and `sent` of its body, announcing more; resolves what comes back, and when. */
function stalledRequest(head: string, sent: string): { answer: Promise<{ text: string; closedAfterMs: number }> } {
  const started = performance.now();
  const answer = new Promise<{ text: string; closedAfterMs: number }>((resolve, reject) => {
    let text = '';
    const socket = connect({ ...server.hostApi, rejectUnauthorized: false }, () => {
      socket.write(head);
      socket.write(sent);
      // …and nothing more: the body stops part of the way.
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ text, closedAfterMs: performance.now() - started }));
    setTimeout(() => reject(new Error('the stalled request was never cut')), 45_000).unref();
  });
  return { answer };
}

// The two stalls wait out the same 30 s side by side.
describe('bodies that stall', { concurrency: 2 }, () => {
  test('an import whose body stalls after 2.2 MB holds no write: a PUT beside it answers at once; at 30 s it is 408 in JSON, logged and counted, and nothing is written', async () => {
    const userId = newUserId('stall');
    const line = `${JSON.stringify({ id: `${userId}-1`, ...hostRecord() })}\n`;
    const sent = line
      .repeat(Math.ceil(2_200_000 / line.length))
      .replace(/"id":"[^"]*"/g, () => `"id":"${userId}-${Math.random()}"`);
    const head =
      `POST /host/v1/users/${encodeURIComponent(userId)}/meals/import HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n` +
      `Content-Type: application/x-ndjson\r\nContent-Length: ${Buffer.byteLength(sent) * 2}\r\n\r\n`;
    const { answer } = stalledRequest(head, sent);
    // The import's first 2.2 MB are in; the PUT beside it must not wait for the rest.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const putStarted = performance.now();
    const put = await hostCall(server, {
      method: 'PUT',
      path: mealPath(userId, `${userId}-beside`),
      json: hostRecord(),
    });
    const putMs = performance.now() - putStarted;
    assert.equal(put.status, 200, put.text);
    assert.ok(putMs < 2_000, `the PUT beside a stalled import took ${Math.round(putMs)} ms`);

    const { text, closedAfterMs } = await answer;
    assert.ok(closedAfterMs >= 25_000 && closedAfterMs <= 35_000, `cut after ${Math.round(closedAfterMs)} ms`);
    assert.match(text, /^HTTP\/1\.1 408 /);
    assert.match(text, /\r\nconnection: close\r\n/i);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'request_timeout');
    assert.match(body.error.message, /30 s/);
    // The log line is written once the answer is out: the client may read the answer first.
    const importTimeouts = () =>
      server
        .logs()
        .split('\n')
        .filter((logLine) => logLine.includes('"msg":"host request"') && logLine.includes('"status":408'))
        .filter((logLine) => logLine.includes('/meals/import'));
    for (let waited = 0; importTimeouts().length === 0 && waited < 2_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(importTimeouts().length, 1, server.logs());
    const metrics = await (await fetch(`${server.adminUrl}/metrics`)).text();
    assert.match(
      metrics,
      /meal_export_host_api_requests_total\{route="POST \/host\/v1\/users\/\{userId\}\/meals\/import",status="408"\} 1/,
    );
    assert.equal((await hostCall(server, { path: mealPath(userId, `${userId}-1`) })).status, 404, 'nothing written');
    const next = await hostCall(server, { method: 'PUT', path: mealPath(userId, `${userId}-2`), json: hostRecord() });
    assert.equal(next.status, 200, next.text);
  });

  test('a PUT whose JSON body stalls is 408 request_timeout too, and nothing is written', async () => {
    const userId = newUserId('stall-put');
    const json = JSON.stringify(hostRecord());
    const head =
      `PUT ${mealPath(userId, 'm')} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n`;
    const { text } = await stalledRequest(head, json.slice(0, 20)).answer;
    assert.match(text, /^HTTP\/1\.1 408 /);
    assert.match(text, /"code":"request_timeout"/);
    assert.equal((await hostCall(server, { path: mealPath(userId, 'm') })).status, 404, 'nothing written');
  });
});

test('an import whose client leaves half-way writes nothing and is no failure of the service: no error logged', async () => {
  const userId = newUserId('left');
  const line = `${JSON.stringify({ id: `${userId}-1`, ...hostRecord() })}\n`;
  const before = server.logs().length;
  await new Promise<void>((resolve) => {
    const socket = connect({ ...server.hostApi, rejectUnauthorized: false }, () => {
      socket.write(
        `POST /host/v1/users/${userId}/meals/import HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n` +
          `Content-Type: application/x-ndjson\r\nContent-Length: ${line.length * 3}\r\n\r\n${line}`,
      );
      setTimeout(() => socket.destroy(), 300);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
  // The server hears of the close at once; what it makes of it is logged within the second.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const errors = server
    .logs()
    .slice(before)
    .split('\n')
    .filter((logLine) => /"level":50/.test(logLine));
  assert.deepEqual(errors, [], 'a client that leaves is not an error of the service');
  assert.equal((await hostCall(server, { path: mealPath(userId, `${userId}-1`) })).status, 404, 'nothing written');
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
