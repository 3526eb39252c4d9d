import assert from 'node:assert/strict';
import { type AddressInfo, createServer } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { runCli } from '../support/cli.js';
import { makeTempDir } from '../support/project.js';
import { sigtermWithAnswerInFlight, startTestServer } from '../support/server.js';

test('on SIGTERM the server stops accepting, sends the answer in flight in full, and exits 0', async () => {
  const server = await startTestServer();
  try {
    // About 16 MB: most of the answer is still in the server process when SIGTERM arrives.
    const { text, exitCode } = await sigtermWithAnswerInFlight(server);
    assert.ok(text.length > 15_000_000, `a large answer: ${text.length} bytes`);
    const body = JSON.parse(text) as { count: number; meals: unknown[] };
    assert.equal(body.count, 5000);
    assert.equal(body.meals.length, 5000, 'the whole answer arrived');
    assert.equal(exitCode, 0, 'exit code 0');
  } finally {
    await server.stop();
  }
});

test('a client that has not sent its headers within 10 s is cut off', { timeout: 30_000 }, async () => {
  const server = await startTestServer();
  try {
    const started = Date.now();
    const closedAfterMs = await new Promise<number>((resolve) => {
      const socket = tlsConnect({ host: server.host, port: server.port, rejectUnauthorized: false }, () => {
        // A request line and one header, then nothing: the headers never end.
        socket.write('GET /v1/meals?lastModifiedSince=2025-01-01 HTTP/1.1\r\nHost: localhost\r\n');
      });
      socket.on('data', () => {});
      socket.on('error', () => {});
      socket.on('close', () => resolve(Date.now() - started));
      setTimeout(() => socket.destroy(), 25_000).unref();
    });
    assert.ok(closedAfterMs >= 9_500, `cut off after ${closedAfterMs} ms: not before 10 s`);
    assert.ok(closedAfterMs <= 13_000, `cut off after ${closedAfterMs} ms: within a few seconds of 10 s`);
  } finally {
    await server.stop();
  }
});

const BUSY_PORT_CASES: readonly (readonly [string, readonly string[]])[] = [
  ['--port', []],
  ['--admin-port', []],
  ['--app-port', []],
  ['--port', ['--workers', '2']],
  ['--admin-port', ['--workers', '2']],
];
for (const [flag, extra] of BUSY_PORT_CASES) {
  const label = `serve ${extra.join(' ')}${extra.length > 0 ? ' ' : ''}whose ${flag} is in use`;
  test(`${label} says so in exactly one line, with no log before it, and exits 1`, async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const temp = makeTempDir('port-busy');
    try {
      const { port } = blocker.address() as AddressInfo;
      const ports = { '--port': '0', '--admin-port': undefined, '--app-port': undefined, [flag]: String(port) };
      const portArgs = Object.entries(ports).flatMap(([name, value]) => (value === undefined ? [] : [name, value]));
      const result = await runCli([
        'serve',
        ...extra,
        ...portArgs,
        '--db',
        path.join(temp.dir, 'store.db'),
        '--data-dir',
        temp.dir,
      ]);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stderr, `meal-export: port ${port} is in use\n`);
      assert.equal(result.stdout, '');
    } finally {
      blocker.close();
      temp.remove();
    }
  });
}
