import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { serveConfigOf } from '../../src/cli/serve-config-args.js';
import { type ServingAlone, startServingAlone } from '../../src/cli/serve-alone.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { makeTempDir } from './project.js';
import { type ServedApp, serveArgs, type StartOptions } from './server.js';
import { storeWriter } from './store-writer.js';

/**
 * The service started in the test's own process, for the tests whose subject is what it
 * answers, not how its process lives: the same settings as `serve` (the same arguments, read
 * by serveConfigOf), the same listeners over real TLS, and no process start (about 0.8 s a
 * server, and 0.4 s for each `keys create` or `meals import` run as a command). The store is
 * changed as the app's back end changes it in its own process, through `meal-export/host` on
 * the store the server serves (docs/app.md#the-back-end-meal-exporthost). Tests of signals,
 * exits, logs on stderr, a second process on the store or the commands themselves start the
 * real process (server.ts startTestServer).
 */
export async function startInProcessServer(options: StartOptions = {}): Promise<ServedApp> {
  if (options.workers !== undefined) throw new Error('--workers forks processes: start one (startTestServer)');
  const temp = options.dataDir === undefined ? makeTempDir('server') : undefined;
  const dir = options.dataDir ?? temp?.dir ?? '';
  const db = options.db ?? path.join(dir, 'meal-export.db');
  const config = serveConfigOf(serveArgs(options, dir, db));
  mkdirSync(dir, { recursive: true });
  const storage = await openStorage(db, { serving: true });
  let logs = '';
  const logDestination = { write: (line: string) => (logs += line) };
  let served: ServingAlone;
  try {
    served = await startServingAlone(config, { storage, logDestination });
  } catch (error) {
    await storage.close();
    temp?.remove();
    throw error;
  }
  const { server, admin } = served;
  const { hostname, port } = new URL(server.url);
  const { hostApiUrl } = server;
  return {
    url: server.url,
    host: hostname,
    port: Number(port),
    db,
    dir,
    adminUrl: admin?.url,
    hostApi:
      hostApiUrl === undefined
        ? undefined
        : { url: hostApiUrl, host: new URL(hostApiUrl).hostname, port: Number(new URL(hostApiUrl).port) },
    logs: () => logs,
    async stop() {
      await admin?.close();
      await server.close();
      await storage.close();
      temp?.remove();
      return 0;
    },
    ...storeWriter(storage),
  };
}
