import { type AdminListener, startAdminListener } from '../metrics/admin-listener.js';
import { scrapeRegistry } from '../metrics/cluster-metrics.js';
import { createServiceMetrics } from '../metrics/service-metrics.js';
import type { ServeConfig } from '../serve/serve-config.js';
import { type RunningServer, type ServerOptions, startServer } from '../server.js';

/** One process serving, as `serve` does by default: startServer's listeners, and the admin listener when asked. */
export interface ServingAlone {
  readonly server: RunningServer;
  readonly admin: AdminListener | undefined;
}

/**
 * Starts the service in this process with its admin listener (`--admin-port`), which counts
 * what the service's metrics see. The log lines are held until every listener is bound, so
 * that a port in use is the start's one line; a failed start leaves nothing open. For `serve`
 * (cli/serve.ts) and for a process that embeds the service on a store and log it gives.
 */
export async function startServingAlone(
  config: ServeConfig,
  options: Pick<ServerOptions, 'storage' | 'logDestination'> = {},
): Promise<ServingAlone> {
  const metrics = config.adminPort === undefined ? undefined : createServiceMetrics();
  const server = await startServer(config, {
    ...options,
    holdLogs: true,
    ...(metrics === undefined ? {} : { metrics }),
  });
  let admin: AdminListener | undefined;
  if (metrics !== undefined && config.adminPort !== undefined) {
    try {
      admin = await startAdminListener(config.adminPort, scrapeRegistry(metrics.registry), server.app.log);
    } catch (error) {
      server.discardLogs();
      await server.close();
      throw error;
    }
  }
  // Every listener is bound: the lines held since the start (the certificate, …) go out now.
  server.releaseLogs();
  return { server, admin };
}
