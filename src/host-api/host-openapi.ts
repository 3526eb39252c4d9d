import { collectComponents } from '../openapi/answers.js';
import { HOST_RESPONSES_WITHOUT_OPERATION } from './host-openapi-answers.js';
import { componentsOfResource, pathItemOf } from './host-openapi-operations.js';
import { HOST_ERROR } from './host-openapi-schemas.js';
import { HOST_RESOURCES } from './host-routes.js';

const DESCRIPTION = [
  "The host API: the diet app's own back end records its users' meals, manages their keys, webhook endpoints and sign-in links, and registers third-party apps, on a listener of its own (serve --host-api-port), never the public one.",
  'Every request but GET /host/v1/openapi.json and /healthz carries Authorization: Bearer <service token> (mxs_…, made by the operator with service-tokens create).',
  'Every answer is JSON, errors included ({"error":{"message","code","param"?,"line"?}}: line only on the import), with Cache-Control: no-store and X-Content-Type-Options: nosniff.',
  "Bodies are JSON (application/json, at most 1 MiB) but the import's JSON Lines; the ids of a path are percent-decoded; a query parameter an operation does not list is 400 invalid_parameter.",
  'What the service answers to a request no operation describes (another path or method, OPTIONS) is under x-responses-without-operation.',
].join(' ');

/** The host API's OpenAPI 3.1 document (docs/host-api.md), built once at start from the table of its resources (host-routes.ts). */
export function buildHostOpenApiDocument(version: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'meal-export host API',
      version,
      description: DESCRIPTION,
      contact: { name: 'The meal-export team' },
      // As the public document: package.json says UNLICENSED, an SPDX LicenseRef for Redocly.
      license: { name: 'Proprietary: all rights reserved (UNLICENSED)', identifier: 'LicenseRef-Proprietary' },
    },
    // Relative, as the public document's: the host API is on another port of the same server.
    servers: [{ url: '/', description: 'The host API listener this document was fetched from.' }],
    tags: [
      { name: 'Meals', description: "A user's meals: saved, read and deleted one by one, or imported many at once." },
      { name: 'Keys', description: "A user's API keys, with which the user's own tools read /v1/meals." },
      { name: 'Webhooks', description: "A user's webhook endpoints, called when the user's meals change." },
      { name: 'Sign-in links', description: 'One-time links that sign a user in to the app page.' },
      { name: 'Users', description: 'A user as a whole: erased when their account is deleted in the diet app.' },
      {
        name: 'Apps',
        description: 'Third-party apps registered by the operator (Connect): each asks people for a key of their own.',
      },
      { name: 'Service', description: 'This document and the health check: no token needed.' },
    ],
    'x-responses-without-operation': HOST_RESPONSES_WITHOUT_OPERATION,
    components: {
      securitySchemes: {
        serviceToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            "mxs_… service token, held by the app's back end only (docs/host-api.md#service-tokens). One token acts for every user.",
        },
      },
      // Collected from the operations' declarations; the error body every refusal names, beside them.
      schemas: collectComponents([...HOST_RESOURCES.flatMap(componentsOfResource), HOST_ERROR]),
    },
    security: [{ serviceToken: [] }],
    paths: Object.fromEntries(HOST_RESOURCES.map((resource) => [resource.path, pathItemOf(resource)])),
  };
}
