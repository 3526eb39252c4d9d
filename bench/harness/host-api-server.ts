import { once } from 'node:events';
import https from 'node:https';
import { createServer } from 'node:net';
import type { FetchedResponse } from './https-get.js';
import { runMealExport, type ServerProcess } from './processes.js';
import { startRealServer } from './servers.js';

/** `serve` with its host API on, and where the host API listens. */
export interface HostApiServer {
  /** The process: its public listener's `url`, its pid for /proc, stop(). */
  readonly server: ServerProcess;
  /** `https://127.0.0.1:PORT` of the host API. */
  readonly hostUrl: string;
}

/**
 * A port nothing listens on now. `serve` says where its host API listens only in an info-level
 * log line, and at info it also logs every request, which the figures must not pay for: so the
 * benchmark picks the port itself.
 */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === 'string') throw new Error('no port for the host API');
  return address.port;
}

/**
 * The real server (bench/harness/servers.ts: TLS, limits raised, warn-level logs) with
 * `--host-api-port`, on store `db`; under `--cpu-prof` when the run has `--profile DIR`.
 */
export async function startHostApiServer(db: string, profileDir: string | undefined): Promise<HostApiServer> {
  // Another process may take the port between the probe and serve's listen: try again then.
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    try {
      const server = await startRealServer(db, profileDir, ['--host-api-port', String(port)]);
      return { server, hostUrl: `https://127.0.0.1:${port}` };
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

/**
 * A service token made by the real command (`service-tokens create --json`, the store in the
 * environment): the token is read from its stdout and passed on by environment, never argv.
 */
export async function createServiceToken(db: string): Promise<string> {
  const out = await runMealExport(['service-tokens', 'create', '--name', 'bench', '--json'], db);
  return (JSON.parse(out) as { token: string }).token;
}

/**
 * One PUT of `body` to `url` with the token, on a connection of its own: the real server's
 * answer, whose bytes the ceiling server then writes (bench/harness/ceiling-server.ts).
 */
export function httpsPut(url: string, ca: string, token: string, body: string): Promise<FetchedResponse> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method: 'PUT',
        ca,
        agent: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
