import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../listener/failure.js';
import { JSON_CONTENT_TYPE } from '../listener/json-response.js';
import { HEALTH_PATH, OPENAPI_PATH, READY_PATH } from './public-routes.js';

export interface InfoRoutesDeps {
  /** Resolves when storage and limiter answer. */
  readonly checkReady: () => Promise<void>;
  /** The OpenAPI document, serialised once. */
  readonly openApiJson: string;
}

const OK = '{"ok":true}';

/** `GET /healthz`'s body on every listener of the service: the process answers. */
export const HEALTH_BODY = OK;

/** `GET /healthz` on a listener other than the public one (the app page's). */
export function registerHealthRoute(app: FastifyInstance): void {
  app.get(HEALTH_PATH, async (_request, reply) => reply.type(JSON_CONTENT_TYPE).send(OK));
}

/** /healthz, /readyz and /v1/openapi.json: no key needed (docs/api.md#the-rest-of-the-transport). */
export function registerInfoRoutes(app: FastifyInstance, deps: InfoRoutesDeps): void {
  registerHealthRoute(app);

  app.get(READY_PATH, async (_request, reply) => {
    try {
      await deps.checkReady();
    } catch (error) {
      throw new AppError('unavailable', 'Not ready: storage or limiter does not answer.', {
        headers: { 'retry-after': UNAVAILABLE_RETRY_AFTER_SECONDS },
        cause: error,
      });
    }
    return reply.type(JSON_CONTENT_TYPE).send(OK);
  });

  app.get(OPENAPI_PATH, async (_request, reply) => reply.type(JSON_CONTENT_TYPE).send(deps.openApiJson));
}
