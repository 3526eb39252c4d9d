import type { FastifyBaseLogger } from 'fastify';
import { type RunningHostApi, startHostApi } from '../host-api/host-listener.js';
import type { AuthFailureLimiter } from '../ratelimit/rate-limiter.js';
import { createKnownBlocks } from '../ratelimit/known-blocks.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { openStorage } from '../storage/open-storage.js';
import type { Storage } from '../storage/storage.js';
import type { TlsMaterial } from '../tls/certificate.js';
import type { ServeConfig } from './serve-config.js';

export interface ServedHostApiOptions {
  readonly config: ServeConfig;
  /** `--host-api-port`. */
  readonly port: number;
  readonly storage: Storage;
  /** False when the caller opened the store (startServer's `storage` option): imports then write through it. */
  readonly ownsStorage: boolean;
  readonly tlsMaterial: TlsMaterial | undefined;
  /** The shared brute-force guard: failed attempts on either listener count against one address. */
  readonly authFailures: AuthFailureLimiter;
  readonly log: FastifyBaseLogger;
  readonly metrics: ServiceMetrics | undefined;
  readonly version: string;
}

/**
 * The host API beside the public listener, on the same store, certificate and brute-force
 * guard (docs/host-api.md#running-it-beside-the-app). On SQLite an import writes through a
 * handle of its own (host-api/host-import.ts), opened on the store the process serves.
 */
export async function startServedHostApi(options: ServedHostApiOptions): Promise<RunningHostApi> {
  const { config, storage, log } = options;
  // An in-memory store has no second handle: another would open another, empty, database.
  const inMemory = config.database === ':memory:' || config.database.startsWith('file::memory:');
  const ownImportHandle = storage.kind === 'sqlite' && options.ownsStorage && !inMemory;
  const hostApi = await startHostApi({
    storage,
    openImportStore: ownImportHandle ? () => openStorage(config.database, { serving: true }) : undefined,
    host: config.hostApiHost ?? '127.0.0.1',
    port: options.port,
    tlsMaterial: options.tlsMaterial,
    guard: { limiter: options.authFailures, known: createKnownBlocks() },
    trustedProxies: config.trustedProxies,
    publicUrl: config.publicUrl,
    log,
    logRequests: ['info', 'debug', 'trace'].includes(config.logLevel),
    metrics: options.metrics?.hostRequests,
    version: options.version,
  });
  log.info({ url: hostApi.url }, 'host API listening');
  return hostApi;
}
