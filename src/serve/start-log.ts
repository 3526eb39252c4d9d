import type { FastifyBaseLogger } from 'fastify';
import { redactedUrl } from '../config.js';
import type { ServeConfig } from './serve-config.js';
import { logTransport } from './serve-tls.js';
import { describeStore } from '../storage/open-storage.js';
import type { Storage } from '../storage/storage.js';
import type { TlsMaterial } from '../tls/certificate.js';

/**
 * Says at start which store and which limiter this instance uses, never a password: a
 * PostgreSQL or Redis URL is logged without it. `storeKind`, for a store the caller opened
 * (ServerOptions.storage), whose location is not known here.
 */
export function logStoreAndLimiter(
  log: FastifyBaseLogger,
  config: ServeConfig,
  workersLimit: 'own' | 'primary' = 'own',
  storeKind?: Storage['kind'],
): void {
  const store = storeKind === undefined ? describeStore(config.database) : `a ${storeKind} store opened by the caller`;
  const limiter =
    config.redisUrl !== undefined
      ? `redis ${redactedUrl(config.redisUrl)} (keys under ${config.redisPrefix})`
      : workersLimit === 'primary'
        ? "in-process, the cluster primary's, shared by every worker"
        : 'in-process';
  log.info({ store, limiter }, `store ${store}, limiter ${limiter}`);
}

/**
 * The lines a server alone (not a cluster worker, whose primary says them once) logs at start:
 * its store and limiter, how it speaks, and the proxies it believes.
 */
export function logServing(
  log: FastifyBaseLogger,
  config: ServeConfig,
  tlsMaterial: TlsMaterial | undefined,
  storeKind: Storage['kind'] | undefined,
): void {
  logStoreAndLimiter(log, config, 'own', storeKind);
  logTransport(log, tlsMaterial);
  if (config.trustedProxies !== undefined) {
    log.info(
      { trustedProxies: config.trustedProxies.list },
      'client addresses read from X-Forwarded-For behind these proxies',
    );
  }
}
