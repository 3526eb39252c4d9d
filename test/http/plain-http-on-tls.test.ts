import assert from 'node:assert/strict';
import http from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { test } from 'node:test';
import { request } from '../support/server.js';
import { startInProcessServer } from '../support/in-process-server.js';

/** A plain `http://` GET on a connection of its own: the answer, and whether the server then closed it. */
function plainGet(port: number): Promise<{ status: number; body: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/v1/meals', agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString('utf8')));
      res.on('end', () => {
        const socket = res.socket;
        const answer = { status: res.statusCode ?? 0, body };
        if (socket.destroyed) resolve({ ...answer, closed: true });
        else socket.once('close', () => resolve({ ...answer, closed: true }));
        setTimeout(() => resolve({ ...answer, closed: false }), 3_000).unref();
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

test('plain HTTP on the TLS ports gets a 400 in plain HTTP saying to use https://, then the connection closes', async () => {
  const appPort = await freePort();
  const server = await startInProcessServer({ extraArgs: ['--app-port', String(appPort)] });
  try {
    for (const port of [server.port, appPort]) {
      const answer = await plainGet(port);
      assert.equal(answer.status, 400, `port ${port}`);
      const body = JSON.parse(answer.body) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'bad_request');
      assert.match(body.error.message, /https:\/\//);
      assert.ok(answer.closed, `port ${port} closes the connection`);
    }
    // TLS clients are served as before, on the same listener.
    assert.equal((await request(server, { path: '/healthz' })).status, 200);
  } finally {
    await server.stop();
  }
});
