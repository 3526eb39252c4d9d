import type { FastifyInstance } from 'fastify';
import { APP_RESOURCES } from './host-app-resources.js';
import { KEY_RESOURCE, KEYS_RESOURCE, LOGIN_LINKS_RESOURCE } from './host-key-resources.js';
import { HISTORY_IMPORT_RESOURCE } from './host-history-resources.js';
import { IMPORT_RESOURCE, MEAL_RESOURCE } from './host-meal-resources.js';
import { registerResource } from './host-resource.js';
import type { HostResource, HostRoutesDeps } from './host-route-table.js';
import { HEALTH_RESOURCE, OPENAPI_RESOURCE } from './host-service-resources.js';
import { USER_RESOURCE } from './host-user-resources.js';
import { WEBHOOK_RESOURCES } from './host-webhook-resources.js';

/** Every path of the host API (docs/host-api.md), in the document's order. */
export const HOST_RESOURCES: readonly HostResource[] = [
  MEAL_RESOURCE,
  IMPORT_RESOURCE,
  HISTORY_IMPORT_RESOURCE,
  KEYS_RESOURCE,
  KEY_RESOURCE,
  LOGIN_LINKS_RESOURCE,
  ...WEBHOOK_RESOURCES,
  USER_RESOURCE,
  ...APP_RESOURCES,
  OPENAPI_RESOURCE,
  HEALTH_RESOURCE,
];

/** Registers every path of the host API, each from its declaration. */
export function registerHostRoutes(app: FastifyInstance, deps: HostRoutesDeps): void {
  for (const resource of HOST_RESOURCES) registerResource(app, resource, deps);
}
