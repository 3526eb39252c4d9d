import type { FastifyInstance } from 'fastify';
import { HEALTH_BODY } from '../http/info-routes.js';
import { HEALTH_PATH } from '../http/public-routes.js';
import type { Storage } from '../storage/storage.js';
import type { ImportStore } from './host-import.js';
import { registerHostKeyRoutes } from './host-key-routes.js';
import { registerHostMealRoutes } from './host-meal-routes.js';
import { registerResource } from './host-resource.js';
import { registerHostWebhookRoutes } from './host-webhook-routes.js';

export interface HostRoutesDeps {
  readonly storage: Storage;
  readonly imports: ImportStore;
  readonly publicUrl: string | undefined;
  /** The OpenAPI document's JSON text, made once (host-openapi.ts). */
  readonly openApiJson: string;
}

/** Every path of the host API (docs/host-api.md). */
export function registerHostRoutes(app: FastifyInstance, deps: HostRoutesDeps): void {
  registerResource(
    app,
    '/host/v1/openapi.json',
    { GET: async () => ({ status: 200, raw: deps.openApiJson }) },
    { authenticated: false },
  );
  // The same health check as every listener's, for the load balancer in front of this one.
  registerResource(
    app,
    HEALTH_PATH,
    { GET: async () => ({ status: 200, raw: HEALTH_BODY }) },
    { authenticated: false },
  );
  registerHostMealRoutes(app, deps);
  registerHostKeyRoutes(app, deps);
  registerHostWebhookRoutes(app, deps);
}
