import { HEALTH_BODY } from '../http/info-routes.js';
import { HEALTH_PATH } from '../http/public-routes.js';
import { component } from '../openapi/answers.js';
import { okSchema, openApiDocumentSchema } from '../openapi/schemas.js';
import { success } from './host-openapi-answers.js';
import { hostResource } from './host-route-table.js';
import { PACKAGE_VERSION } from '../version.js';

/** The paths open without a token: the document itself and the health check. */

const TAG = 'Service';

export const OPENAPI_RESOURCE = hostResource({
  path: '/host/v1/openapi.json',
  tag: TAG,
  description: 'This document.',
  parameters: [],
  authenticated: false,
  operations: {
    GET: {
      operationId: 'getHostOpenApiDocument',
      headId: 'headHostOpenApiDocument',
      summary: 'This document.',
      description: 'No token is needed. The same on every server, whatever its settings.',
      answers: {
        '200': success('This document.', component('OpenApiDocument', openApiDocumentSchema), {
          document: {
            summary: 'Its first fields',
            value: { openapi: '3.1.0', info: { title: 'meal-export host API', version: PACKAGE_VERSION }, paths: {} },
          },
        }),
      },
      handle: async (_call, deps) => ({ raw: deps.openApiJson }),
    },
  },
});

export const HEALTH_RESOURCE = hostResource({
  path: HEALTH_PATH,
  tag: TAG,
  description: 'Whether the process answers.',
  parameters: [],
  authenticated: false,
  operations: {
    GET: {
      operationId: 'getHostHealth',
      headId: 'headHostHealth',
      summary: 'The process answers.',
      description: 'No token is needed: for a load balancer in front of this listener, as /healthz on the public one.',
      answers: {
        '200': success('The process answers.', component('Health', okSchema), {
          ok: { summary: 'Up', value: { ok: true } },
        }),
      },
      // The same health check as every listener's.
      handle: async () => ({ raw: HEALTH_BODY }),
    },
  },
});
