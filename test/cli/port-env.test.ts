import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { type AddressInfo, connect, createServer, type Server } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../support/cli.js';
import { BIN, cleanEnv, makeTempDir, PROJECT_ROOT } from '../support/project.js';
import { request } from '../support/server.js';

/** A port free a moment ago: bound to 0, read, released. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** `serve` with the given flags and environment, until its `listening on` line; then SIGTERM. */
async function withServe(
  args: readonly string[],
  env: Record<string, string>,
  use: (url: URL, logs: () => string) => Promise<void>,
): Promise<void> {
  const temp = makeTempDir('port-env');
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--db', path.join(temp.dir, 'store.db'), '--data-dir', temp.dir, ...args],
    { cwd: PROJECT_ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString('utf8');
        const listening = /listening on (\S+)/.exec(stdout)?.[1];
        if (listening !== undefined) resolve(new URL(listening));
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}:\n${stderr}`)));
    });
    await use(url, () => stderr);
  } finally {
    child.kill('SIGTERM');
    await exited;
    temp.remove();
  }
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

test('MEAL_EXPORT_PORT, MEAL_EXPORT_ADMIN_PORT and MEAL_EXPORT_APP_PORT choose the ports serve listens on', async () => {
  const [port, adminPort, appPort] = [await freePort(), await freePort(), await freePort()];
  const env = {
    MEAL_EXPORT_PORT: String(port),
    MEAL_EXPORT_ADMIN_PORT: String(adminPort),
    MEAL_EXPORT_APP_PORT: String(appPort),
  };
  await withServe([], env, async (url) => {
    assert.equal(url.port, String(port));
    const health = await request({ host: '127.0.0.1', port }, { path: '/healthz' });
    assert.equal(health.status, 200);
    const metrics = await new Promise<number>((resolve, reject) =>
      http
        .get(`http://127.0.0.1:${adminPort}/metrics`, (res) => resolve(res.resume().statusCode ?? 0))
        .on('error', reject),
    );
    assert.equal(metrics, 200);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(appPort, '127.0.0.1', () => {
        socket.end();
        resolve();
      });
      socket.on('error', reject);
    });
  });
});

test('a --port flag wins over MEAL_EXPORT_PORT', async () => {
  const blocker = createServer();
  const busy = await listen(blocker);
  try {
    await withServe(['--port', '0'], { MEAL_EXPORT_PORT: String(busy) }, async (url) => {
      assert.notEqual(url.port, String(busy));
      assert.equal((await request({ host: '127.0.0.1', port: Number(url.port) }, { path: '/healthz' })).status, 200);
    });
  } finally {
    blocker.close();
  }
});

test('a MEAL_EXPORT_PORT that is not a port is one line naming the variable, exit 2', async () => {
  const temp = makeTempDir('port-env-bad');
  try {
    const run = await runCli(['serve', '--db', path.join(temp.dir, 'store.db'), '--data-dir', temp.dir], {
      env: { MEAL_EXPORT_PORT: 'eighty' },
    });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^meal-export: --port \(from MEAL_EXPORT_PORT\) must be a whole number from 0 to 65535/);
  } finally {
    temp.remove();
  }
});
