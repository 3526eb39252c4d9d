import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as CertificateModule from '../../src/tls/certificate.js';
import { DATA_DIR } from './datasets.js';
import type { FetchedResponse } from './https-get.js';
import { BIN, ROOT, type ServerProcess, startServerProcess, storeEnv } from './processes.js';

/** The real server's data folder: its self-signed certificate is made once and reused. */
export const SERVER_HOME = path.join(DATA_DIR, 'server-home');

export interface Certificate {
  readonly certFile: string;
  readonly keyFile: string;
  /** The PEM, trusted by the benchmark's own requests. */
  readonly ca: string;
}

/**
 * Makes the real server's certificate if no server has made it yet (a run of standalone
 * scenarios only starts no real server first), as `serve` would: the built code, same folder.
 */
export async function ensureServerCertificate(): Promise<void> {
  const file = pathToFileURL(path.join(ROOT, 'dist', 'tls', 'certificate.js')).href;
  const { loadTlsMaterial } = (await import(file)) as typeof CertificateModule;
  await loadTlsMaterial({ dataDir: SERVER_HOME, host: '127.0.0.1' });
}

export function serverCertificate(): Certificate {
  const certFile = path.join(SERVER_HOME, 'tls', 'cert.pem');
  const keyFile = path.join(SERVER_HOME, 'tls', 'key.pem');
  return { certFile, keyFile, ca: readFileSync(certFile, 'utf8') };
}

/**
 * `meal-export serve` as users run it (TLS, auth and limiter on), with the limits raised by
 * flags so the load generator is never refused, and warn-level logs; its store `db` in the
 * environment (storeEnv). `serveArgs`: more flags (`--workers 2`); `env`: more environment
 * variables (MEAL_EXPORT_REDIS_URL).
 */
export function startRealServer(
  db: string,
  profileDir?: string,
  serveArgs: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
): Promise<ServerProcess> {
  const profile = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  return startServerProcess(
    'meal-export serve',
    [
      ...profile,
      BIN,
      'serve',
      '--port',
      '0',
      '--data-dir',
      SERVER_HOME,
      '--min-interval-ms',
      '0',
      '--daily-limit',
      '1000000000',
      '--log-level',
      'warn',
      ...serveArgs,
    ],
    { ...storeEnv(db), ...env },
  );
}

const CEILING_SCRIPT = path.join(import.meta.dirname, 'ceiling-server.ts');
/** Headers that belong to one connection or one moment, which Node writes itself. */
const OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * The ceiling for one response: bare node:https writing exactly these bytes, in its own process,
 * or in `workers` processes sharing the port as `serve --workers N` does.
 */
export function startCeilingServer(response: FetchedResponse, certificate: Certificate, scratch: string, workers = 1) {
  mkdirSync(scratch, { recursive: true });
  const headers = Object.fromEntries(
    Object.entries(response.headers).filter(
      (entry): entry is [string, string | string[]] => entry[1] !== undefined && !OWN_HEADERS.has(entry[0]),
    ),
  );
  const head = path.join(scratch, 'ceiling-head.json');
  const body = path.join(scratch, 'ceiling-body.bin');
  writeFileSync(head, JSON.stringify({ status: response.status, headers }));
  writeFileSync(body, response.body);
  return startServerProcess('ceiling', [
    '--import',
    'tsx',
    CEILING_SCRIPT,
    '--cert',
    certificate.certFile,
    '--key',
    certificate.keyFile,
    '--head',
    head,
    '--body',
    body,
    '--workers',
    String(workers),
  ]);
}
