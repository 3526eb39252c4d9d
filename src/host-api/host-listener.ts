import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AuthFailureGuard } from '../http/authenticate.js';
import type { TrustedProxies } from '../listener/client-address.js';
import type { ConnectionDrain } from '../listener/connection-drain.js';
import { createListenerKit } from '../listener/listener-kit.js';
import type { RequestMetrics } from '../listener/request-report.js';
import { createServiceTokenAuthenticator } from '../keys/service-token-authenticator.js';
import type { Storage } from '../storage/storage.js';
import type { TlsMaterial } from '../tls/certificate.js';
import { buildHostApp } from './host-app.js';
import type { ImportStore } from './host-import.js';
import { buildHostOpenApiDocument } from './host-openapi.js';
import { registerHostRoutes } from './host-routes.js';

export interface HostApiOptions {
  readonly storage: Storage;
  /** Opens a store handle of the import's own (SQLite); undefined: imports write through `storage`. */
  readonly openImportStore: (() => Promise<Storage>) | undefined;
  readonly host: string;
  readonly port: number;
  readonly tlsMaterial: TlsMaterial | undefined;
  readonly guard: AuthFailureGuard;
  readonly trustedProxies: TrustedProxies | undefined;
  readonly publicUrl: string | undefined;
  readonly log: FastifyBaseLogger;
  readonly logRequests: boolean;
  readonly metrics: RequestMetrics | undefined;
  readonly version: string;
}

export interface RunningHostApi {
  /** `https://HOST:PORT` (http:// with --insecure-http), the port actually bound. */
  readonly url: string;
  /** Its connections, cut when the drain's deadline passes. */
  readonly connections: ConnectionDrain | undefined;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** The import's writer: its own SQLite handle opened once, on the first import; else the serving store. */
function importStoreOf(options: HostApiOptions): ImportStore {
  const { openImportStore } = options;
  if (openImportStore === undefined) {
    return { writes: async () => options.storage.writes, close: async () => undefined };
  }
  let opened: Promise<Storage> | undefined;
  const open = () => {
    // A failed open is not kept: the next import tries again.
    opened ??= openImportStore().catch((error: unknown) => {
      opened = undefined;
      throw error;
    });
    return opened;
  };
  return {
    writes: async () => (await open()).writes,
    async close() {
      // A handle that never opened has nothing to close, and must not stop the rest of the close.
      const handle = await opened?.catch(() => undefined);
      await handle?.close();
    },
  };
}

/**
 * The host API's listener beside the public one (docs/host-api.md#running-it-beside-the-app):
 * the same certificate and connection limits, its own routes and credentials. Rejects when it
 * cannot listen (its port in use).
 */
export async function startHostApi(options: HostApiOptions): Promise<RunningHostApi> {
  // The public listener's server: its parser settings (the sizes and a missing Host answered in
  // JSON by host-app.ts), connection limits and drain.
  const listener = createListenerKit({ tls: options.tlsMaterial, json: true });
  const imports = importStoreOf(options);
  const tokens = createServiceTokenAuthenticator(options.storage.serviceTokens, {
    onTouchFailure: (err) => options.log.warn({ err }, 'could not record a service token use'),
  });
  const app = await buildHostApp({
    auth: {
      tokens,
      guard: options.guard,
      trustedProxies: options.trustedProxies,
    },
    log: options.log,
    logRequests: options.logRequests,
    metrics: options.metrics,
    listener,
    routes: (instance) =>
      registerHostRoutes(instance, {
        storage: options.storage,
        imports,
        publicUrl: options.publicUrl,
        openApiJson: JSON.stringify(buildHostOpenApiDocument(options.version)),
      }),
  });
  let url: string;
  try {
    url = await listener.listen(app, options.host, options.port);
  } catch (error) {
    await app.close();
    await imports.close();
    throw error;
  }
  return {
    url,
    connections: listener.connections(),
    app,
    async close() {
      await app.close();
      await imports.close();
      // Its last uses are written before the store closes.
      await tokens.settled();
    },
  };
}
